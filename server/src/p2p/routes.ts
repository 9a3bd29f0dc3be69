/**
 * The P2P network's routes (docs/spec.md §7): the node registry, connecting, and the STUN/TURN
 * configuration. Signaling is on the socket (signaling.ts).
 */
import { errorCodes, errorTexts, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { requireAuth } from '../access/policy';
import { emergencyState } from '../creator/emergency-state';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { perMember } from '../conversations/routes';
import { normalizeIp } from '../security/blocks';
import { listNodes, openConnection, removeP2pOf, upsertNode } from './registry';
import { announceConnection, p2pFrameFailed, p2pFrameHandler } from './signaling';
import { iceServersFor } from './turn';

export async function p2pRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config, gateway } = ctx;
  // p2p_signal and p2p_close share one count, rateLimits.p2pSignal (clientFrames in packages/protocol/src/frames.ts).
  const handler = p2pFrameHandler(ctx);
  gateway.frames.handle('p2p_signal', handler, p2pFrameFailed);
  gateway.frames.handle('p2p_close', handler, p2pFrameFailed);

  const refuseInEmergency = async () => {
    if ((await emergencyState(db)).active) throw new HttpError(403, errorCodes.forbidden, errorTexts.p2pSuspended);
  };

  serve(app, routes.p2pNodes, async () => ({ nodes: await listNodes(db) }));

  serve(app, routes.p2pHost, async (req) => {
    const auth = requireAuth(req);
    await refuseInEmergency();
    const { capabilities, maxConnections, location, publishAddress } = req.body;
    await upsertNode(db, auth.user.id, {
      capabilities: [...new Set(capabilities)],
      maxConnections,
      location,
      ipAddress: publishAddress ? (normalizeIp(req.ip) ?? req.ip) : null,
    });
    const [node] = await listNodes(db, { hostId: auth.user.id });
    return { node: node! };
  });

  serve(app, routes.p2pStopHosting, async (req) => {
    const auth = requireAuth(req);
    // Only the caller's node: the connections they joined elsewhere stay.
    const ended = await removeP2pOf(db, [auth.user.id], { joined: false });
    for (const c of ended) await announceConnection(ctx, c, 'closed');
    return { ok: true as const };
  });

  serve(
    app,
    routes.p2pConnect,
    async (req) => {
      const auth = requireAuth(req);
      await refuseInEmergency();
      const { connection, replaced } = await openConnection(db, req.params.id, auth.user.id);
      if (replaced) await announceConnection(ctx, replaced, 'closed');
      await announceConnection(ctx, connection, 'requested');
      return { connectionId: connection.id, nodeId: connection.nodeId, hostId: connection.hostId };
    },
    { rateLimit: rateLimit(config.rateLimits.p2pConnect, perMember) },
  );

  serve(app, routes.p2pConfig, async (req) => iceServersFor(config, requireAuth(req).user.id, Date.now()));
}
