/**
 * Web Push routes: the VAPID public key, and a browser's subscription kept or forgotten for the
 * caller's session (docs/architecture.md, "Web Push").
 */
import { createPublicKey } from 'node:crypto';
import { errorCodes, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { serve } from '../http/routes';
import { pushEndpointRefusal } from './endpoints';
import { deleteSubscription, saveSubscription } from './subscriptions';

export async function pushRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config, push } = ctx;

  serve(app, routes.pushKey, async () => ({ publicKey: push.publicKey }));

  serve(app, routes.pushSubscribe, async (req) => {
    const auth = requireAuth(req);
    const refusal = pushEndpointRefusal(req.body.endpoint, config.pushEndpointAllow);
    if (refusal) throw new HttpError(400, errorCodes.invalidRequest, refusal);
    if (!onP256(req.body.keys.p256dh)) throw new HttpError(400, errorCodes.invalidRequest, 'keys.p256dh: must be a point on P-256');
    await saveSubscription(db, auth.user.id, auth.sessionId, req.body);
    return { ok: true as const };
  });

  serve(app, routes.pushUnsubscribe, async (req) => {
    const auth = requireAuth(req);
    await deleteSubscription(db, auth.user.id, req.body.endpoint);
    return { ok: true as const };
  });
}

/** Whether 65 bytes (0x04, x, y) are a point on the curve: a key web-push could not encrypt for is refused here, not at each push. */
function onP256(p256dh: string): boolean {
  const raw = Buffer.from(p256dh, 'base64url');
  try {
    createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: raw.subarray(1, 33).toString('base64url'), y: raw.subarray(33).toString('base64url') },
      format: 'jwk',
    });
    return true;
  } catch {
    return false;
  }
}
