/**
 * Overload refused early (http/overload.ts): past MAX_IN_FLIGHT requests working on the database,
 * the instance answers 503 with Retry-After at once instead of queueing, and what it accepted is
 * stored as usual. The database is held still by a lock taken in the test, so that a request is
 * surely in flight when the next one comes.
 */
import { routes } from '@enclave/protocol';
import { count, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../db/schema';
import { backends, relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(backends)('overload (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits, maxInFlight: 1, requestLimits: { degradedForMs: 1_000 } } });
  let alice: TestMember;

  beforeAll(async () => {
    [alice] = await suite.members('alice');
    // The refusal is what is looked at here, not the client's resend after it.
    alice.sendRetryDelaysMs = [];
    expect((await alice.send('all', 'first')).status).toBe(201);
  });

  it('answers 503 with Retry-After while its one place is taken, stores what it accepted, and takes requests again after', async () => {
    let release!: () => void;
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const held = suite.database.db.transaction(async (tx) => {
      // Every session read waits for this lock: the request that took the place stays in flight.
      await tx.execute(sql`LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await lockTaken;
    const accepted = alice.send('all', 'held up');
    // Give it time to reach the server and take the place (waiting, not asserting a time).
    await sleep(500);
    const refused = await alice.attempt(routes.users, {});
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.error).toMatchObject({ code: 'unavailable', error: 'The server is busy. Try again in a moment.' });
    // The health check is never refused, and says so: a load balancer sends new work elsewhere.
    expect((await alice.request('HEAD', routes.health.path)).status).toBe(503);
    const health = await alice.request('GET', routes.healthGet.path);
    expect([health.status, health.body]).toEqual([503, { ok: false, status: 'degraded' }]);

    release();
    await held;
    expect((await accepted).status).toBe(201);
    expect((await alice.send('all', 'after')).status).toBe(201);
    const [stored] = await suite.database.db.select({ n: count() }).from(messages);
    expect(stored?.n).toBe(3);
    const texts = (await alice.decrypt(await alice.history('all'))).map((m) => m.text);
    expect(texts).toEqual(['first', 'held up', 'after']);
    // Healthy again a moment after the last refusal.
    await expect.poll(async () => (await alice.request('GET', routes.healthGet.path)).body, { timeout: 10_000 }).toEqual({ ok: true });
    expect((await alice.request('HEAD', routes.health.path)).status).toBe(200);
  });
});
