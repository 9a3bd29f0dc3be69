/**
 * PostgreSQL restarted under load, behind two instances that stay up: while it is down every
 * request is answered 503 with Retry-After (never a 500), sockets stay open, and the instances
 * serve again by themselves once it is back (their connection pools reconnect). Sends refused
 * meanwhile are resent with their client message ids until stored.
 */
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryMessageOnce, report, sleep, startLoad } from './support/chat';
import { startCluster, type Cluster } from './support/cluster';
import { plan } from './support/services';

const needs = plan({ postgres: true, redis: true });

describe.runIf(needs.run)('PostgreSQL restarted under load', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    cluster = await startCluster({ name: 'pgrestart', instances: 2, members: 4 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('answers 503 with Retry-After while it is down, keeps sockets open, recovers by itself, and loses nothing', async () => {
    const { members, instances, proxy, postgres } = cluster;
    // A reader polling the member list through the proxy every 100 ms, besides the senders.
    const polls: { at: number; status: number; retryAfter: string | null }[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const res = await members[0]!.member.attempt(routes.users, {}).catch(() => null);
        polls.push({ at: Date.now(), status: res?.status ?? 0, retryAfter: res?.headers.get('retry-after') ?? null });
        await sleep(100);
      }
    })();
    const load = startLoad(members, 40);
    await sleep(1500);
    const downAt = Date.now();
    postgres.stop();
    await sleep(3000);
    postgres.start();
    const upAt = Date.now();
    // The same processes serve again, without a restart.
    await expect.poll(() => polls.at(-1)?.status, { timeout: 15_000, interval: 100 }).toBe(200);
    const servingAgainAt = polls.findLast((p) => p.status !== 200)?.at ?? downAt;
    const ackedBeforeRecovery = members.reduce((n, m) => n + m.acked.size, 0);
    await sleep(2000);
    await load.stop();
    polling = false;
    await poller;

    const tally = await expectEveryMessageOnce(members, cluster.stored);
    expect(
      members.reduce((n, m) => n + m.acked.size, 0),
      'sends stored after the restart',
    ).toBeGreaterThan(ackedBeforeRecovery);
    expect(
      instances.every((i) => i.running),
      'no instance restarted',
    ).toBe(true);
    // Every refusal was a 503 with Retry-After, and they came while PostgreSQL was away.
    expect(
      [...proxy.statuses.keys()].filter((s) => s >= 500 && s !== 503),
      'no 5xx but 503',
    ).toEqual([]);
    expect(proxy.unavailable.length, 'requests answered 503 while it was down').toBeGreaterThan(0);
    expect(proxy.unavailable.filter((u) => u.retryAfter !== '5')).toEqual([]);
    expect(polls.filter((p) => p.status !== 200 && (p.status !== 503 || p.retryAfter !== '5'))).toEqual([]);
    expect(proxy.unavailable.filter((u) => u.at < downAt || u.at > servingAgainAt + 1000)).toEqual([]);
    // The sockets stayed open throughout.
    for (const m of members) expect(m.closes, `${m.name}'s socket`).toEqual([]);
    for (const i of instances) expect(i.errors()).toEqual([]);
    const first503 = Math.min(...proxy.unavailable.map((u) => u.at));
    const last503 = Math.max(...proxy.unavailable.map((u) => u.at));
    report('PostgreSQL restarted under load', {
      ...tally,
      downMs: upAt - downAt,
      answered503: proxy.unavailable.length,
      secondsOf503: (last503 - first503) / 1000,
      first503MsAfterStop: first503 - downAt,
      last503MsBeforeBack: upAt - last503,
      polls: { total: polls.length, unavailable: polls.filter((p) => p.status === 503).length },
      statuses: Object.fromEntries(proxy.statuses),
      socketCloses: members.reduce((n, m) => n + m.closes.length, 0),
    });
  });
});
