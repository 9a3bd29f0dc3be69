/** Key administration and moderation for admins and the creator (docs/spec.md §7: /api/admin/*). */
import {
  banUserRequestSchema,
  exportKeysQuerySchema,
  generateKeysRequestSchema,
  revokeKeysRequestSchema,
  unbanUserRequestSchema,
} from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context';
import { parse } from '../http/errors';
import { availableKeys, createKeys, keysCsv, keyStats, listKeys, revokeKeys, toAccessKey } from '../keys/service';
import { actorOf, eventTypes, recordEvent } from '../security/events';
import { setBanned } from '../users/moderation';

/** docs/spec.md §2: the key list shows the first 20. */
const LISTED_KEYS = 20;

export async function adminRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  app.get('/api/admin/key-stats', async () => keyStats(db));

  app.get('/api/admin/unused-keys', async () => ({ keys: await availableKeys(db, LISTED_KEYS) }));

  app.post('/api/admin/generate-keys', async (req, reply) => {
    const body = parse(generateKeysRequestSchema, req.body);
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
    return reply.status(201).send({ keys: rows.map((r) => toAccessKey({ ...r, username: null })) });
  });

  app.post('/api/admin/revoke-keys', async (req) => {
    const { ids } = parse(revokeKeysRequestSchema, req.body);
    const revoked = await revokeKeys(db, ids);
    await recordEvent(db, req, { type: eventTypes.keysRevoked, severity: 'medium', actor: actorOf(req), details: { ids, revoked } });
    return { revoked };
  });

  app.get('/api/admin/export-keys', async (req, reply) => {
    const { purchaseId } = parse(exportKeysQuerySchema, req.query);
    const keys = (await listKeys(db, { includeCanaries: false, purchaseId })).filter(
      (k) => purchaseId !== undefined || k.status === 'active',
    );
    await recordEvent(db, req, {
      type: eventTypes.keysExported,
      severity: 'medium',
      actor: actorOf(req),
      details: { purchaseId: purchaseId ?? null, count: keys.length },
    });
    const name = `enclave-keys-${(purchaseId ?? 'available').replace(/[^A-Za-z0-9_-]/g, '_')}.csv`;
    return reply
      .header('content-type', 'text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${name}"`)
      .header('cache-control', 'no-store')
      .send(keysCsv(keys));
  });

  app.post('/api/admin/ban-user', async (req) => {
    const { userId, reason } = parse(banUserRequestSchema, req.body);
    await setBanned(ctx, { kind: req.isCreator ? 'creator' : 'admin' }, [userId], { banned: true, reason });
    await recordEvent(db, req, { type: eventTypes.userBanned, severity: 'high', userId, actor: actorOf(req), details: { reason } });
    return { ok: true };
  });

  app.post('/api/admin/unban-user', async (req) => {
    const { userId } = parse(unbanUserRequestSchema, req.body);
    await setBanned(ctx, { kind: req.isCreator ? 'creator' : 'admin' }, [userId], { banned: false });
    await recordEvent(db, req, { type: eventTypes.userUnbanned, severity: 'medium', userId, actor: actorOf(req) });
    return { ok: true };
  });
}
