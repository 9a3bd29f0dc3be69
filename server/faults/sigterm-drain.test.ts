/**
 * SIGTERM drains an instance behind the proxy while members send: it stops accepting connections,
 * closes its sockets with 1001 "going away" (members reconnect at once, through the proxy, to the
 * other instance), answers the requests it already has, writes the security events it held in
 * memory, closes its database and exits 0.
 */
import net from 'node:net';
import { deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { closeCodes, routes, type Message } from '@enclave/protocol';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestMember } from '../src/testing/member';
import { expectEveryMessageOnce, LiveMember, report, sleep, startLoad } from './support/chat';
import { startCluster, type Cluster } from './support/cluster';
import { generateKeys } from './support/instance';
import { plan } from './support/services';

const needs = plan({ postgres: true, redis: true });

/** Whether something accepts a TCP connection on the port. */
const accepting = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe.runIf(needs.run)('SIGTERM drains an instance', () => {
  let cluster: Cluster;
  let witness: LiveMember;

  /** The witness's conversation with member 1: only the witness's requests wait on its row. */
  let conversationId: string;
  const witnessSent: Message[] = [];

  beforeAll(async () => {
    if (needs.missing.length) throw new Error(`CI=true and missing: ${needs.missing.join('; ')}`);
    cluster = await startCluster({ name: 'drain', instances: 2, members: 4 });
    // A member who talks to A directly, to have requests in flight there when it is told to stop:
    // direct messages to member 1, so that holding their conversation holds nobody else.
    witness = await LiveMember.join(cluster.instances[0]!.url, (await generateKeys(cluster.env, 1))[0]!, 'drain-witness');
    const peer = cluster.members[1]!.member.id;
    witnessSent.push(await witness.send('drain-witness first', peer));
    conversationId = witnessSent[0]!.conversationId;
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('stops accepting, closes sockets with 1001, finishes requests in flight, writes held security events, exits 0', async () => {
    const { members, instances, proxy } = cluster;
    const [a, b] = [instances[0]!, instances[1]!];

    // Security events held in A's memory: failed sign-ins from one address beyond the 100 it writes
    // at once per minute (security/events.ts), each a login_failed or, past the limit, a rate_limit.
    const source = '10.9.8.7';
    const attempts = 130;
    const anonymous = new TestMember.Anonymous(a.url);
    for (let i = 0; i < attempts; i++) {
      const res = await anonymous.attempt(
        routes.login,
        { body: { loginKey: await deriveLoginKey(generateAccessToken()) } },
        { 'x-forwarded-for': source },
      );
      expect([401, 429]).toContain(res.status);
    }
    const eventsFrom = async () =>
      Number(
        (
          await cluster.sql<{ n: string }>(
            `SELECT coalesce(sum(coalesce((details->>'count')::int, 1)), 0) AS n FROM security_events WHERE ip = $1 AND type IN ('login_failed', 'rate_limit')`,
            [source],
          )
        )[0]!.n,
      );
    await expect.poll(eventsFrom).toBe(100);

    const load = startLoad(members, 40);
    await sleep(1000);
    // Requests in flight on A: the test holds the witness's conversation row, so its sends wait.
    const lock = new pg.Client({ connectionString: cluster.databaseUrl });
    lock.on('error', () => undefined); // should the test fail with it open, the cluster's end ends it
    await lock.connect();
    await lock.query('BEGIN');
    await lock.query('SELECT id FROM conversations WHERE id = $1 FOR UPDATE', [conversationId]);
    // Backends waiting on the test's lock, or in line behind one that is. Asked outside the
    // holder's transaction: pg_stat_activity is read once per transaction, and a connection the
    // pool opens after that read would never be counted.
    const holder = (await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const waiting = async () =>
      Number(
        (
          await cluster.sql<{ n: string }>(
            `WITH RECURSIVE blocked AS (
               SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))
               UNION SELECT a.pid FROM pg_stat_activity a JOIN blocked b ON b.pid = ANY(pg_blocking_pids(a.pid)))
             SELECT count(*) AS n FROM blocked`,
            [holder],
          )
        )[0]!.n,
      );
    // One after the other, each once the one before waits: sends arriving together share a
    // transaction (db/group-commit.ts), so each of these waits in a transaction of its own. The
    // wait is for the event, however long a busy machine takes to reach it.
    const sends: Promise<Message>[] = [];
    for (const i of [1, 2, 3]) {
      sends.push(witness.send(`drain-witness in flight ${i}`, members[1]!.member.id));
      await expect.poll(waiting, { timeout: 20_000 }).toBe(i);
    }
    const inFlight = Promise.all(sends);

    const termAt = Date.now();
    a.signal('SIGTERM');
    // No new connection is accepted, while the requests in flight are still being waited for.
    await expect.poll(() => accepting(a.port), { timeout: 5000, interval: 20 }).toBe(false);
    const refusingAfterMs = Date.now() - termAt;
    expect(a.running, 'A waits for its requests in flight').toBe(true);
    // Its sockets (members 0 and 2) were closed with 1001 and came back at once on B.
    const onA = [members[0]!, members[2]!];
    await expect.poll(() => onA.every((m) => m.connected && m.reconnects.length === 1)).toBe(true);
    for (const m of onA)
      expect(
        m.closes.map((c) => c.code),
        m.name,
      ).toEqual([closeCodes.goingAway]);
    await sleep(500);
    await lock.query('COMMIT');
    await lock.end();
    // Answered by A (the witness talks to A only, which accepts nothing new): 201, stored once.
    witnessSent.push(...(await inFlight));
    const exit = await a.exited;
    const drainMs = Date.now() - termAt;
    expect(exit).toEqual({ code: 0, signal: null });
    // What A held in memory was written before it closed its database.
    expect(await eventsFrom()).toBe(attempts);

    await sleep(1000);
    await load.stop();
    const tally = await expectEveryMessageOnce(members, cluster.stored);
    const witnessStored = await cluster.sql<{ id: string }>('SELECT id FROM messages WHERE conversation_id = $1', [conversationId]);
    const witnessIds = witnessSent.map((m) => m.id).sort((x, y) => x - y);
    expect(
      witnessStored.map((r) => Number(r.id)).sort((x, y) => x - y),
      "the witness's messages, stored once",
    ).toEqual(witnessIds);
    const peerHistory = await members[1]!.member.history(witness.member.id);
    expect(
      peerHistory.map((m) => m.id),
      'and in its peer’s history',
    ).toEqual(witnessIds);
    for (const m of [members[1]!, members[3]!]) expect(m.closes, `${m.name}'s socket on B stayed`).toEqual([]);
    // A request A took in while closing is answered 503 with Retry-After (and resent by its
    // client); anything else 5xx would be a failure.
    expect(
      [...proxy.statuses.keys()].filter((s) => s >= 500 && s !== 503),
      'no 5xx but 503',
    ).toEqual([]);
    expect(proxy.unavailable.filter((u) => u.retryAfter !== '5' || u.at < termAt)).toEqual([]);
    for (const i of [a, b]) expect(i.errors()).toEqual([]);
    report('SIGTERM drain', {
      ...tally,
      witnessAcknowledged: witnessSent.length,
      refusingConnectionsAfterMs: refusingAfterMs,
      drainMs,
      reconnectMs: onA.map((m) => m.reconnects[0]),
      answered503WhileClosing: proxy.unavailable.length,
      securityEvents: { caused: attempts, writtenBeforeDrain: 100, afterDrain: attempts },
      statuses: Object.fromEntries(proxy.statuses),
    });
  });
});
