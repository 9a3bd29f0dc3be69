/**
 * The creator's key database at the size a network reaches (tens of thousands of keys): paged on
 * the server, oldest first, filtered in SQL by the same status keyStatus names; and "revoke all
 * active keys" done by the server, for keys the console never loaded.
 */
import { errorResponseSchema, routes, routeUrl, type AccessKey, type AccessKeysQuery } from '@enclave/protocol';
import { asc, eq, inArray } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { accessKeys } from '../db/schema';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { createKeys, keyStatus, mintKeys } from './service';

describe.each(backends)('the key database, paged (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const creator = () => new TestMember.Anonymous(suite.server.url);
  const page = (query: AccessKeysQuery) => creator().call(routes.accessKeys, { query }, creatorHeaders);
  /** Every page of a filter, followed by its `next` cursors. */
  const walk = async (query: AccessKeysQuery) => {
    const keys: AccessKey[] = [];
    const totals = new Set<number>();
    for (let after: string | undefined, pages = 0; ; pages++) {
      const p = await page({ ...query, after });
      keys.push(...p.keys);
      totals.add(p.total);
      if (!p.next) return { keys, totals, pages: pages + 1 };
      expect(p.next).toBe(p.keys.at(-1)!.id);
      after = p.next;
    }
  };

  let holders = 0;
  /** One key of each status (the used one redeemed by a new member), a canary among the active ones; the rest of the table is cleared. */
  const oneOfEach = async () => {
    await suite.database.db.delete(accessKeys);
    const [active, revoked, expired, canary] = [
      ...(await createKeys(suite.database.db, { count: 3, purchaseId: 'kinds' })),
      ...(await createKeys(suite.database.db, { count: 1, canary: true })),
    ];
    await suite.database.db.update(accessKeys).set({ status: 'revoked' }).where(eq(accessKeys.id, revoked!.id));
    await suite.database.db
      .update(accessKeys)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(accessKeys.id, expired!.id));
    const [member] = await suite.members(`holder${++holders}`);
    const [used] = await suite.database.db.select().from(accessKeys).where(eq(accessKeys.usedBy, member!.id));
    return { active: active!, revoked: revoked!, expired: expired!, canary: canary!, used: used!, holder: member!.user.username };
  };

  beforeEach(async () => {
    await suite.database.db.delete(accessKeys);
  });

  it('pages through every key once, oldest first, with the same total on every page', async () => {
    const first = await createKeys(suite.database.db, { count: 130, purchaseId: 'first-batch' });
    const second = await createKeys(suite.database.db, { count: 100, purchaseId: 'second-batch' });
    const { keys, totals, pages } = await walk({});
    expect(pages).toBe(3);
    expect([...totals]).toEqual([230]);
    expect(keys.map((k) => k.id)).toHaveLength(230);
    expect(new Set(keys.map((k) => k.id)).size).toBe(230);
    // Oldest first; a batch shares its time, and the id orders it.
    const stored = await suite.database.db
      .select({ id: accessKeys.id })
      .from(accessKeys)
      .orderBy(asc(accessKeys.generatedAt), asc(accessKeys.id));
    expect(keys.map((k) => k.id)).toEqual(stored.map((r) => r.id));
    expect(new Set(keys.slice(0, 130).map((k) => k.purchaseId))).toEqual(new Set(['first-batch']));
    expect(
      keys
        .slice(0, 130)
        .map((k) => k.id)
        .sort(),
    ).toEqual(first.map((k) => k.id).sort());
    expect(
      keys
        .slice(130)
        .map((k) => k.id)
        .sort(),
    ).toEqual(second.map((k) => k.id).sort());
    // A smaller page, and a filter paged the same way.
    expect((await walk({ limit: 7, q: 'second' })).keys.map((k) => k.id)).toEqual(keys.slice(130).map((k) => k.id));
  });

  it('filters each status in the database exactly as keyStatus names each key', async () => {
    const kinds = await oneOfEach();
    await createKeys(suite.database.db, { count: 2 });
    const rows = await suite.database.db.select().from(accessKeys);
    for (const status of ['active', 'used', 'revoked', 'expired'] as const) {
      const { keys, totals } = await walk({ status, limit: 1 });
      const expected = rows.filter((r) => keyStatus(r) === status).map((r) => r.id);
      expect(keys.map((k) => k.id).sort(), status).toEqual(expected.sort());
      expect([...totals], status).toEqual([expected.length]);
      for (const k of keys) expect(k.status).toBe(status);
    }
    expect((await walk({ status: 'active' })).keys.find((k) => k.id === kinds.canary.id)?.isCanary).toBe(true);
    expect((await walk({ status: 'used' })).keys.map((k) => k.username)).toEqual([kinds.holder]);
  });

  it('searches purchase IDs and the redeeming member’s name in any case, % and _ taken as written', async () => {
    const { holder } = await oneOfEach();
    await createKeys(suite.database.db, { count: 1, purchaseId: 'Sale_50%' });
    await createKeys(suite.database.db, { count: 1, purchaseId: 'sale-500' });
    const found = async (q: string) => (await walk({ q })).keys.map((k) => k.purchaseId ?? k.username);
    expect(await found('SALE_50%')).toEqual(['Sale_50%']);
    expect((await found('sale')).sort()).toEqual(['Sale_50%', 'sale-500']);
    expect(await found('%')).toEqual(['Sale_50%']);
    expect(await found(holder.toUpperCase())).toEqual([holder]);
    expect(await page({ q: 'nobody-has-this' })).toEqual({ keys: [], total: 0, next: null });
  });

  it('refuses a page size out of range and a cursor that is not a key id, with what is wrong', async () => {
    for (const [query, message] of [
      ['limit=0', /^limit: /],
      ['limit=501', /^limit: /],
      ['limit=ten', /^limit: /],
      ['after=42', /^after: must be a key id/],
    ] as const) {
      const res = await creator().request('GET', `${routeUrl(routes.accessKeys, {})}?${query}`, undefined, creatorHeaders);
      expect(res.status, query).toBe(400);
      expect(errorResponseSchema.parse(res.body).error, query).toMatch(message);
    }
  });

  it('revokes every active key at once, canaries and keys on no loaded page included, and nothing else', async () => {
    const kinds = await oneOfEach();
    const more = await mintKeys(suite.database.db, { count: 600 });
    expect((await page({ status: 'active' })).keys).toHaveLength(100);
    expect(await creator().call(routes.revokeActiveKeys, {}, creatorHeaders)).toEqual({ revoked: 602 });
    const after = new Map((await suite.database.db.select().from(accessKeys)).map((r) => [r.id, keyStatus(r)]));
    expect([kinds.active.id, kinds.canary.id].map((id) => after.get(id))).toEqual(['revoked', 'revoked']);
    expect([kinds.used.id, kinds.expired.id, kinds.revoked.id].map((id) => after.get(id))).toEqual(['used', 'expired', 'revoked']);
    const rest = await suite.database.db.select({ status: accessKeys.status }).from(accessKeys).where(inArray(accessKeys.key, more));
    expect(new Set(rest.map((r) => r.status))).toEqual(new Set(['revoked']));
    expect(await page({ status: 'active' })).toEqual({ keys: [], total: 0, next: null });
    expect(await creator().call(routes.revokeActiveKeys, {}, creatorHeaders)).toEqual({ revoked: 0 });
  });
});
