/**
 * P2P across instances (PostgreSQL + Redis, the production path): a node hosted on A is seen
 * online from B while its host's socket is open on A, a joiner on B connects, and signaling
 * crosses the bus both ways; closing on either side reaches the other.
 */
import { routes, type ServerFrame } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { mintKeys } from '../keys/service';
import { backends, redisEnabled, relaxedRateLimits } from '../testing/harness';
import { twoInstances } from '../testing/two-instances';
import { TestMember } from '../testing/member';

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('P2P on two instances over PostgreSQL and Redis', () => {
  const servers = twoInstances({ rateLimits: relaxedRateLimits });

  it('hosts on A, joins on B, and signals across the bus', async () => {
    const { a, b, database } = servers;
    const [k1, k2, k3] = await mintKeys(database.db, { count: 3 });
    const host = await TestMember.join(a.url, k1!, 'host-a');
    const joiner = await TestMember.join(b.url, k2!, 'joiner-b');
    const other = await TestMember.join(b.url, k3!, 'other-b');
    // Presence is written per tick, then announced: wait for each member's own.
    const online = async (m: TestMember) => {
      const s = await m.connect();
      await s.waitFor((f) => (f.type === 'presence' || f.type === 'presence_snapshot') && f.online.includes(m.id));
      return s;
    };
    const hostSocket = await online(host);
    const joinerSocket = await online(joiner);
    const otherSocket = await online(other);
    const { node } = await host.call(routes.p2pHost, {
      body: { nodeType: 'community_host', capabilities: [], maxConnections: 5, location: 'A' },
    });
    const seenFromB = async () => (await joiner.call(routes.p2pNodes, {})).nodes.find((n) => n.id === node.id);
    await expect.poll(async () => (await seenFromB())?.status, { timeout: 10_000, interval: 20 }).toBe('online');

    const { connectionId } = await joiner.call(routes.p2pConnect, { params: { id: node.id } });
    await hostSocket.waitFor((f) => f.type === 'p2p_connection' && f.state === 'requested');
    joinerSocket.send({ type: 'p2p_signal', connectionId, signal: { kind: 'offer', payload: 'v=0 offer' } });
    expect(await hostSocket.waitFor((f) => f.type === 'p2p_signal')).toMatchObject({
      from: joiner.id,
      signal: { kind: 'offer', payload: 'v=0 offer' },
    });
    hostSocket.send({ type: 'p2p_signal', connectionId, signal: { kind: 'answer', payload: 'v=0 answer' } });
    expect(await joinerSocket.waitFor((f) => f.type === 'p2p_signal')).toMatchObject({ from: host.id, signal: { kind: 'answer' } });
    await joinerSocket.waitFor((f) => f.type === 'p2p_connection' && f.state === 'open');
    expect((await seenFromB())?.currentConnections).toBe(1);

    // A third member on B is refused; nothing of theirs reaches A.
    otherSocket.send({ type: 'p2p_signal', connectionId, signal: { kind: 'offer', payload: 'intruder' } });
    await otherSocket.waitFor((f) => f.type === 'error');

    // The close crosses the bus after the refusal: once A has it, the intruder's offer would have come before.
    joinerSocket.send({ type: 'p2p_close', connectionId });
    await hostSocket.waitFor((f) => f.type === 'p2p_connection' && f.state === 'closed');
    expect(hostSocket.frames.filter((f: ServerFrame) => f.type === 'p2p_signal')).toHaveLength(1);

    // The host's socket on A closes: B lists the node offline.
    hostSocket.close();
    await expect.poll(async () => (await seenFromB())?.status, { timeout: 10_000, interval: 20 }).toBe('offline');
    joinerSocket.close();
    otherSocket.close();
  });
});
