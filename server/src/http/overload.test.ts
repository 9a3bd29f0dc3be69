/**
 * Overload refused early (http/overload.ts): past MAX_IN_FLIGHT requests working on the database,
 * the instance answers 503 with Retry-After at once instead of queueing, and what it accepted is
 * stored as usual. The database is held still by a lock taken in the test, so that a request is
 * surely in flight when the next one comes.
 */
import { routes } from '@enclave/protocol';
import { count } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../db/schema';
import { backends, holdSessionReads, relaxedRateLimits } from '../testing/harness';
import type { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { build } from '../version';

describe.each(backends)('overload (%s)', (backend) => {
  const suite = oneInstance(backend, {
    config: { rateLimits: relaxedRateLimits, maxInFlight: 1, requestLimits: { degradedForMs: 1_000 } },
  });
  let alice: TestMember;

  beforeAll(async () => {
    [alice] = await suite.members('alice');
    // The refusal is what is looked at here, not the client's resend after it.
    alice.sendRetryDelaysMs = [];
    expect((await alice.send('all', 'first')).status).toBe(201);
  });

  it('answers 503 with Retry-After while its one place is taken, stores what it accepted, and takes requests again after', async () => {
    // Every session read waits: the request that took the place stays in flight.
    const release = await holdSessionReads(suite.database);
    const accepted = alice.send('all', 'held up');
    // It reached the server and holds the one place.
    await expect.poll(() => suite.server.app.gate.held).toBe(1);
    const refused = await alice.attempt(routes.users, {});
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.error).toMatchObject({ code: 'unavailable', error: 'The server is busy. Try again in a moment.' });
    // The health check is never refused, and says so: a load balancer sends new work elsewhere.
    expect((await alice.request('HEAD', routes.health.path)).status).toBe(503);
    const health = await alice.request('GET', routes.healthGet.path);
    expect([health.status, health.body]).toEqual([503, { ok: false, status: 'degraded', ...build }]);

    await release();
    expect((await accepted).status).toBe(201);
    expect((await alice.send('all', 'after')).status).toBe(201);
    const [stored] = await suite.database.db.select({ n: count() }).from(messages);
    expect(stored?.n).toBe(3);
    const texts = (await alice.decrypt(await alice.history('all'))).map((m) => m.text);
    expect(texts).toEqual(['first', 'held up', 'after']);
    // Healthy again a moment after the last refusal.
    await expect
      .poll(async () => (await alice.request('GET', routes.healthGet.path)).body, { timeout: 10_000 })
      .toEqual({ ok: true, ...build });
    expect((await alice.request('HEAD', routes.health.path)).status).toBe(200);
  });
});
