/**
 * Web Push routes: the VAPID public key, and a browser's subscription kept or forgotten for the
 * caller's session (docs/architecture.md, "Web Push").
 */
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
    await saveSubscription(db, auth.user.id, auth.sessionId, req.body);
    return { ok: true as const };
  });

  serve(app, routes.pushUnsubscribe, async (req) => {
    const auth = requireAuth(req);
    await deleteSubscription(db, auth.user.id, req.body.endpoint);
    return { ok: true as const };
  });
}
