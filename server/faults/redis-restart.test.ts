/**
 * Redis restarted (killed, back empty) under two instances while every member sends. Sending goes
 * on meanwhile (rate limits counted in each instance's memory); the frames published while the bus
 * was cut are lost, so once both bus connections are back each instance tells its sockets to catch
 * up (`authenticated` again) and members fetch from the database what the bus missed. The bus and
 * presence work again with no restart.
 */
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryMessageOnce, LiveMember, report, sleep, startLoad } from './support/chat';
import { startCluster, type Cluster } from './support/cluster';
import { generateKeys } from './support/instance';
import { plan } from './support/services';

const needs = plan({ postgres: true, redis: true });

describe.runIf(needs.run)('Redis restarted under load', () => {
  let cluster: Cluster;
  let newcomer: LiveMember | undefined;

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    cluster = await startCluster({ name: 'redisrestart', instances: 2, members: 4 });
  });
  afterAll(async () => {
    await newcomer?.stop();
    await cluster?.close();
  });

  it('keeps sending, then has every member catch up what the bus missed; bus and presence recover by themselves', async () => {
    const { members, instances, proxy, redis } = cluster;
    const load = startLoad(members, 40);
    await sleep(1500);
    const downAt = Date.now();
    await redis.stop();
    await sleep(3000);
    await redis.start();
    const upAt = Date.now();
    // Every socket is asked to catch up once both bus connections of its instance are back.
    await expect.poll(() => members.filter((m) => !m.resyncs.some((t) => t >= upAt)).map((m) => m.name), { timeout: 15_000 }).toEqual([]);
    await sleep(1000);
    await load.stop();

    const tally = await expectEveryMessageOnce(members, cluster.stored);
    const ackedWhileDown = members.flatMap((m) => [...m.ackedAt.values()]).filter((t) => t > downAt && t < upAt).length;
    expect(ackedWhileDown, 'messages stored while Redis was down').toBeGreaterThan(0);
    expect(Math.max(...members.map((m) => m.viaCatchUp.size)), 'messages only the catch-up brought').toBeGreaterThan(0);
    expect(
      [...proxy.statuses.keys()].filter((s) => s >= 500),
      'no 5xx: sending went on',
    ).toEqual([]);
    for (const m of members) expect(m.closes, `${m.name}'s socket stayed open`).toEqual([]);
    // The only errors logged: frames that could not be published while Redis was away.
    for (const i of instances) expect(i.errors().filter((l) => !l.includes('could not publish on the bus after a commit'))).toEqual([]);

    // The bus works again both ways: a newcomer's socket (on A, the fifth) is announced to all,
    // and a message sent after the restart reaches every socket as a frame.
    const joined = await LiveMember.join(proxy.url, (await generateKeys(cluster.env, 1))[0]!, 'redisrestart-new');
    newcomer = joined;
    await joined.start();
    await expect
      .poll(() => members.filter((m) => !m.presence.some((p) => p.userId === joined.member.id && p.online)).map((m) => m.name))
      .toEqual([]);
    await members[1]!.send('after the restart');
    const last = [...members[1]!.acked.keys()].at(-1)!;
    await expect.poll(() => members.filter((m) => !m.viaFrame.has(last)).map((m) => m.name)).toEqual([]);
    const { users } = await members[0]!.member.call(routes.users, {});
    expect(
      users.filter((u) => [...members, joined].some((m) => m.member.id === u.id) && !u.online).map((u) => u.username),
      'presence',
    ).toEqual([]);

    report('Redis restarted under load', {
      ...tally,
      downMs: upAt - downAt,
      ackedWhileDown,
      resyncMsAfterRedisBack: members.map((m) => m.resyncs.find((t) => t >= upAt)! - upAt),
      failedPublishes: instances.map((i) => i.errors().length),
      statuses: Object.fromEntries(proxy.statuses),
    });
  });
});
