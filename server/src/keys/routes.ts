/** Invite keys: validation for anyone, administration for admins and the creator. */
import { errorTexts, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { emergencyState } from '../creator/emergency-state';
import { rateLimit, serve } from '../http/routes';
import { actorOf, eventTypes, recordEvent } from '../security/events';
import {
  availableKeys,
  createKeys,
  exportableKeys,
  keyPage,
  keysCsv,
  keyStats,
  mintKeys,
  revokeActiveKeys,
  revokeKeys,
  toAccessKey,
  validateKey,
} from './service';

/** The key list of /admin shows the first 20 (docs/spec.md §9). */
const LISTED_KEYS = 20;

export async function keyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  serve(
    app,
    routes.validateKey,
    async (req) => {
      const { result, row } = await validateKey(db, req.body.inviteKey);
      if (row?.isCanary) {
        await recordEvent(db, req, { type: eventTypes.canaryKey, severity: 'critical', details: { keyId: row.id, action: 'validate' } });
      } else if (!result.valid) {
        await recordEvent(db, req, { type: eventTypes.keyRefused, severity: 'low', details: { reason: result.reason } });
      }
      // Emergency mode closes registration (auth/routes.ts refuses it): say so at this first step,
      // for every key, rather than call one valid that cannot be redeemed.
      if ((await emergencyState(db)).active)
        return { valid: false, reason: errorTexts.registrationClosed, keyInfo: null, registrationClosed: true };
      return result;
    },
    { rateLimit: rateLimit(ctx.config.rateLimits.validateKey) },
  );

  serve(app, routes.keyStats, async () => keyStats(db));

  serve(app, routes.unusedKeys, async () => ({ keys: await availableKeys(db, LISTED_KEYS) }));

  serve(app, routes.generateKeys, async (req) => {
    const { body } = req;
    const rows = await createKeys(db, {
      count: body.quantity,
      expirationDays: body.expirationDays,
      purchaseId: body.purchaseId,
      salePrice: body.salePrice,
      canary: body.canary,
    });
    await recordEvent(db, req, {
      type: eventTypes.keysGenerated,
      severity: 'low',
      actor: actorOf(req),
      details: { quantity: body.quantity, purchaseId: body.purchaseId ?? null, canary: body.canary ?? false },
    });
    return { keys: rows.map((r) => toAccessKey({ ...r, username: null })) };
  });

  serve(app, routes.revokeKeys, async (req) => {
    const { ids } = req.body;
    const revoked = await revokeKeys(db, ids);
    await recordEvent(db, req, { type: eventTypes.keysRevoked, severity: 'medium', actor: actorOf(req), details: { ids, revoked } });
    return { revoked };
  });

  serve(app, routes.revokeActiveKeys, async (req) => {
    const revoked = await revokeActiveKeys(db);
    await recordEvent(db, req, {
      type: eventTypes.keysRevoked,
      severity: 'medium',
      actor: actorOf(req),
      details: { allActive: true, revoked },
    });
    return { revoked };
  });

  serve(app, routes.exportKeys, async (req, reply) => {
    const { purchaseId } = req.query;
    const keys = await exportableKeys(db, purchaseId);
    await recordEvent(db, req, {
      type: eventTypes.keysExported,
      severity: 'medium',
      actor: actorOf(req),
      details: { purchaseId: purchaseId ?? null, count: keys.length },
    });
    const name = `enclave-keys-${(purchaseId ?? 'available').replace(/[^A-Za-z0-9_-]/g, '_')}.csv`;
    reply.header('content-disposition', `attachment; filename="${name}"`).header('cache-control', 'no-store');
    return keysCsv(keys);
  });

  serve(app, routes.accessKeys, (req) => keyPage(db, req.query));

  // Keys to try the app with, in development only: a production network sells its keys, and
  // there the route does not exist (404).
  if (ctx.config.production) return;
  serve(app, routes.generateTestKeys, async (req) => {
    const keys = await mintKeys(db, { count: req.body.quantity, purchaseId: 'test-keys' });
    await recordEvent(db, req, {
      type: eventTypes.keysGenerated,
      severity: 'low',
      actor: actorOf(req),
      details: { quantity: keys.length, test: true },
    });
    return { keys: keys.map((accessToken) => ({ accessToken })) };
  });
}
