/**
 * Read receipts, in direct messages only: the member's opt-in, their read position, and the
 * peer's, shown only while both opted in (service.ts). The general channel has none: its routes
 * take a member id, so `all` is refused as malformed input.
 */
import { errorCodes, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import type { AppContext } from '../context';
import { conversationFor } from '../conversations/membership';
import { perMember } from '../conversations/routes';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { readPosition } from '../realtime/publish';
import { isReadableMessage, peerPosition, sendsReadReceipts, setReadReceipts, storePosition } from './service';

export async function readReceiptRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;
  const limit = { rateLimit: rateLimit(ctx.config.rateLimits.readPosition, perMember) };

  serve(
    app,
    routes.setReadReceipts,
    async (req) => {
      const me = requireAuth(req).user.id;
      await setReadReceipts(db, me, req.body.enabled);
      return { enabled: req.body.enabled };
    },
    limit,
  );

  serve(
    app,
    routes.markRead,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { receiverId, messageId } = req.body;
      // Reading: a DM with a member banned since is still the caller's to read (access/rules.ts).
      const conversationId = await conversationFor(db, me, receiverId, 'read');
      if (!(await isReadableMessage(db, conversationId, messageId))) {
        throw new HttpError(404, errorCodes.notFound, 'No such message in this conversation');
      }
      const stored = await storePosition(db, conversationId, me, messageId);
      // Only to a peer who sends read receipts too: one who does not sees none.
      if (stored && (await sendsReadReceipts(db, receiverId))) await readPosition(ctx.gateway, receiverId, conversationId, me, messageId);
      return { stored };
    },
    limit,
  );

  serve(app, routes.readPosition, async (req) => {
    const me = requireAuth(req).user.id;
    const conversationId = await conversationFor(db, me, req.query.receiverId, 'read');
    return { position: await peerPosition(db, conversationId, me, req.query.receiverId) };
  });
}
