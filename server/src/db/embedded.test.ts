/**
 * The embedded database on its own thread (db/embedded.ts): when the thread dies, requests answer
 * 503 with Retry-After, a new thread opens the same files, and every message the server
 * acknowledged before is still there, once and in order.
 */
import { describe, expect, it } from 'vitest';
import { relaxedRateLimits } from '../testing/harness';
import { oneInstance } from '../testing/one-instance';
import { embeddedClient } from './client';

describe('the embedded database thread', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });

  it('answers 503 while its thread is replaced after a crash, then serves again with nothing acknowledged lost', async () => {
    const [alice, bob] = await suite.members('alice', 'bob');
    // Alice sees the server's own answers; Bob's client sends again on a 503 as the web app does.
    alice.sendRetryDelaysMs = [];
    const embedded = embeddedClient(suite.database.db)!;
    expect((await alice.send('all', 'before the crash')).status).toBe(201);
    expect((await bob.send('all', 'bob before the crash')).status).toBe(201);

    // Sends in flight when the thread dies, once three of them (whichever) are acknowledged: each
    // is either acknowledged (201) or refused as unavailable (503), never lost once acknowledged.
    let acknowledgedSoFar = 0;
    let crashed: Promise<void> | undefined;
    const inFlight = Array.from({ length: 12 }, async (_, i) => {
      const outcome = await alice.send('all', `in flight ${i}`);
      if (outcome.status === 201 && ++acknowledgedSoFar === 3) crashed = embedded.crash();
      return outcome;
    });
    const outcomes = await Promise.all(inFlight);
    await crashed;
    // How many were still in flight at the crash depends on the machine (a group commit may have
    // stored all twelve by then): each is acknowledged or refused, and the refusal is checked below.
    expect(outcomes.filter((o) => o.status === 201).length).toBeGreaterThanOrEqual(3);
    expect(outcomes.every((o) => o.status === 201 || o.status === 503)).toBe(true);

    // The thread is replaced after a pause (a second): a send meanwhile is refused, to be sent again.
    const refused = await alice.send('all', 'while it restarts');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBeTruthy();
    const retried = bob.send('all', 'sent again until it is stored');

    await embedded.whenReady();
    expect((await retried).status).toBe(201);
    expect((await alice.send('all', 'after the recovery')).status).toBe(201);
    const texts = (await bob.decrypt(await bob.history('all', { limit: 100 }))).map((m) => m.text);
    // Every acknowledged message once. One stored whose answer the crash cut off may be there too
    // (its sender, told 503, sends it again under the same client id and is answered with it).
    const acknowledged = outcomes.flatMap((o, i) => (o.status === 201 ? [`in flight ${i}`] : []));
    expect(texts.slice(0, 2)).toEqual(['before the crash', 'bob before the crash']);
    expect(texts.at(-1)).toBe('after the recovery');
    expect(new Set(texts).size).toBe(texts.length);
    for (const text of acknowledged) expect(texts).toContain(text);
    expect(texts).toContain('sent again until it is stored');
    expect(texts).not.toContain('while it restarts');
  });
});
