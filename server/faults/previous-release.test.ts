/**
 * An upgrade from the previous release as docs/operations.md §16 gives it, while members send:
 * two instances of 1.0.0 (built from its tag, support/release.ts) serve on PostgreSQL and Redis;
 * `npm run migrate` of this version is started twice at once beside them; the instances are then
 * restarted on this version one after the other. While the two versions run side by side, members
 * on each instance receive the messages sent through the other as live frames (the bus carries
 * both versions' events), and at the end every acknowledged message is stored once and held once
 * by every member.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryMessageOnce, LiveMember, report, sleep, startLoad } from './support/chat';
import { startCluster, type Cluster } from './support/cluster';
import { currentDist, generateKeys, Instance } from './support/instance';
import { buildRelease, releaseCommit, type Release } from './support/release';
import { plan } from './support/services';
import { build } from '../src/version';

const PREVIOUS = '1.0.0';
const needs = plan({ postgres: true, redis: true });
const commit = needs.run ? await releaseCommit(PREVIOUS) : null;
if (needs.run && !commit)
  console.warn(
    `previous-release upgrade test skipped: this clone has neither the tag v${PREVIOUS} nor the commit CHANGELOG.md names for it (a shallow clone?)`,
  );

const health = async (instance: Instance) =>
  (await fetch(`${instance.url}${routes.healthGet.path}`)).json() as Promise<Record<string, unknown>>;

describe.runIf(needs.run && commit !== null)(`upgrade from ${PREVIOUS} with both versions running`, () => {
  let release: Release;
  let cluster: Cluster;
  const direct: LiveMember[] = [];

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    release = await buildRelease(PREVIOUS, commit!);
    cluster = await startCluster({ name: 'upgrade', instances: 2, members: 4, build: release.dist });
  });
  afterAll(async () => {
    await Promise.all(direct.map((m) => m.stop()));
    await cluster?.close();
    release?.remove();
  });

  it('migrates once beside the old instances, then restarts them in turn on this version, losing nothing', async () => {
    const { members, instances, env } = cluster;
    for (const i of instances) expect(await health(i), `${PREVIOUS} has no version in its health check`).toEqual({ ok: true });
    const load = startLoad(members, 60);
    await sleep(500);

    // This version's migrations, twice at once beside the old instances: one applies, one waits.
    const migrate = () => promisify(execFile)(process.execPath, [path.join(currentDist, 'migrate.js')], { env });
    const migrations = await Promise.all([migrate(), migrate()]);
    for (const m of migrations) expect(m.stdout).toMatch(/^Database up to date: \d+ migrations applied/);
    const applied = await cluster.sql<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations');
    expect(new Set(applied.map((r) => r.hash)).size, 'each migration applied once').toBe(applied.length);
    expect(migrations[0]!.stdout).toContain(`${applied.length} migrations applied`);

    // Instance 1 restarted on this version; instance 0 still runs the previous release.
    instances[1]!.signal('SIGTERM');
    expect((await instances[1]!.exited).code).toBe(0);
    instances[1] = await Instance.start(instances[1]!.port, env);
    expect(await health(instances[1]!)).toMatchObject({ ok: true, version: build.version });

    // A member on each version, straight to its instance: what the other sends must come as a frame.
    const keys = await generateKeys(env, 2);
    // The messages a newcomer may read begin after its sign-up; what the channel held by then is its history before joining.
    const joinedAfter = new Map<LiveMember, number>();
    // Both with pages from the previous release, as every member is while its instances serve: each
    // reads what the others send (a page of this version sends under the channel's key, which a
    // session from before share keys reads only once its member signs in again).
    for (const [i, instance] of instances.entries()) {
      const member = await LiveMember.join(instance.url, keys[i]!, `upgrade-direct-${i}`, { withoutShareKey: true });
      direct.push(member);
      joinedAfter.set(member, Math.max(...(await cluster.stored())));
      await member.start();
    }
    const mixedFrom = Date.now();
    const sending = startLoad(direct, 60);
    await sleep(2000);
    await sending.stop();
    await sleep(500);
    const mixedUntil = Date.now();
    const sentWhileMixed = [...members, ...direct].flatMap((m) =>
      [...m.ackedAt].filter(([, at]) => at > mixedFrom && at < mixedUntil - 500).map(([id]) => id),
    );
    expect(sentWhileMixed.length).toBeGreaterThan(20);
    for (const m of direct) {
      expect(m.closes, `${m.name}'s socket stayed open`).toEqual([]);
      expect(
        sentWhileMixed.filter((id) => !m.viaFrame.has(id)),
        `${m.name} got every message sent meanwhile as a frame`,
      ).toEqual([]);
    }
    expect(
      instances[1]!.lines.some((l) => l.includes('"busVersion":0')),
      'this version noticed the older one on the bus',
    ).toBe(true);

    // Instance 0 restarted on this version too: the upgrade is done.
    instances[0]!.signal('SIGTERM');
    expect((await instances[0]!.exited).code).toBe(0);
    instances[0] = await Instance.start(instances[0]!.port, env);
    await sleep(1000);
    await load.stop();

    const tally = await expectEveryMessageOnce([...members, ...direct], cluster.stored, joinedAfter);
    for (const m of members) expect(m.failedCatchUps, `${m.name}'s catch-ups`).toEqual([]);
    for (const i of instances) expect(i.errors()).toEqual([]);
    for (const i of instances) expect(await health(i)).toMatchObject({ ok: true, version: build.version });
    report(`upgrade from ${PREVIOUS}`, {
      ...tally,
      sentWhileMixed: sentWhileMixed.length,
      statuses: Object.fromEntries(cluster.proxy.statuses),
    });
  });
});
