/**
 * `kill -9` of one of two instances behind the proxy while every member sends. Members whose
 * socket was on it reconnect through the proxy to the other one and catch up from history; a send
 * whose answer died with the instance is resent with its client message id. Nothing acknowledged
 * is lost, nothing is stored or shown twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryMessageOnce, report, sleep, startLoad } from './support/chat';
import { startCluster, type Cluster } from './support/cluster';
import { plan } from './support/services';

const needs = plan({ postgres: true, redis: true });

describe.runIf(needs.run)('kill -9 of an instance behind the proxy, on PostgreSQL and Redis', () => {
  let cluster: Cluster;

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    cluster = await startCluster({ name: 'kill', instances: 2, members: 4 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('loses no acknowledged message: members reconnect to the other instance and catch up, without gap or duplicate', async () => {
    const { members, instances, proxy } = cluster;
    const [a, b] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const load = startLoad(members, 40);
    await sleep(1500);
    const killedAt = Date.now();
    await a.kill();
    // Sending goes on through the survivor.
    await sleep(3000);
    await load.stop();

    const tally = await expectEveryMessageOnce(members, cluster.stored);
    // Members 0 and 2 had their sockets on A: cut (no close frame from a killed process), then
    // back through the proxy on B.
    const onA = [members[0]!, members[2]!];
    for (const m of onA) {
      expect(
        m.closes.filter((c) => c.at >= killedAt).map((c) => c.code),
        m.name,
      ).toEqual([1006]);
      expect(m.reconnects, `${m.name} reconnected`).toHaveLength(1);
      expect(m.connected).toBe(true);
    }
    for (const m of [members[1]!, members[3]!]) expect(m.closes, `${m.name}'s socket on B stayed`).toEqual([]);
    expect(proxy.statuses.get(500) ?? 0, 'no 500 answer').toBe(0);
    expect(b.errors()).toEqual([]);
    report('kill -9 behind the proxy', {
      ...tally,
      reconnectMs: onA.flatMap((m) => m.reconnects),
      sendPosts: proxy.requests.get('POST /api/messages/send'),
      cutInFlight: proxy.cut.length,
      statuses: Object.fromEntries(proxy.statuses),
    });
  });
});
