/**
 * Canary keys are tripwires: whoever holds a leaked list must not be able to tell them from keys
 * that do not exist, so they answer exactly as unknown keys do, while their use still raises a
 * critical event (docs/security.md §10).
 */
import { randomBytes } from 'node:crypto';
import { createAccount, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { errorTexts, routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { accessKeys, securityEvents } from '../db/schema';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { createKeys } from './service';

describe.each(backends)('canary keys (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let anon: InstanceType<typeof TestMember.Anonymous>;

  beforeAll(async () => {
    anon = new TestMember.Anonymous(suite.server.url);
  });

  const unknownKey = () => randomBytes(32).toString('hex');

  async function canaries() {
    const [fresh, revoked, expired] = await createKeys(suite.database.db, { count: 3, canary: true });
    await suite.database.db.update(accessKeys).set({ status: 'revoked' }).where(eq(accessKeys.id, revoked!.id));
    await suite.database.db
      .update(accessKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(accessKeys.id, expired!.id));
    return [fresh!, revoked!, expired!];
  }

  it('answer validation exactly as an unknown key does', async () => {
    const unknown = await anon.request('POST', routes.validateKey.path, { inviteKey: unknownKey() });
    expect(unknown.body).toEqual({ valid: false, reason: errorTexts.keyUnknown, keyInfo: null });
    for (const canary of await canaries()) {
      const res = await anon.request('POST', routes.validateKey.path, { inviteKey: canary.key });
      expect([res.status, res.body]).toEqual([unknown.status, unknown.body]);
    }
  });

  it('answer registration exactly as an unknown key does', async () => {
    const account = await createAccount(generateAccessToken());
    const body = async (inviteKey: string) => ({
      inviteKey,
      username: 'tripwire',
      loginKey: await deriveLoginKey(generateAccessToken()),
      ...account.publicIdentity,
      encryptedPrivateKey: account.encryptedPrivateKey,
    });
    const unknown = await anon.request('POST', routes.register.path, await body(unknownKey()));
    expect(unknown.status).toBe(409);
    expect(unknown.body).toEqual({ code: 'key_invalid', error: errorTexts.keyUnknown });
    for (const canary of await canaries()) {
      const res = await anon.request('POST', routes.register.path, await body(canary.key));
      expect([res.status, res.body]).toEqual([unknown.status, unknown.body]);
    }
  });

  it('still raise a critical canary_key_used event at validation and at registration', async () => {
    await suite.database.db.delete(securityEvents);
    const [canary] = await createKeys(suite.database.db, { count: 1, canary: true });
    await anon.request('POST', routes.validateKey.path, { inviteKey: canary!.key });
    await expect(TestMember.join(suite.server.url, canary!.key, 'tripwire2')).rejects.toThrow(errorTexts.keyUnknown);
    const alerts = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'canary_key_used'));
    expect(alerts.map((a) => [a.severity, a.details.action, a.details.keyId])).toEqual([
      ['critical', 'validate', canary!.id],
      ['critical', 'register', canary!.id],
    ]);
    // Nothing else says which key it was: no "refused key" event beside the alert.
    const refused = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'key_validation_failed'));
    expect(refused).toEqual([]);
  });
});
