/**
 * Per-member limits on what one member can make the server hand to others (docs/security.md §9):
 * disappearing-timer changes (each an event in the conversation's history), P2P connection
 * requests, and P2P signaling frames over the socket. Each holds for the member over the limit
 * only: another member is served as before.
 */
import { routes, type ServerFrame } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { securityEvents } from '../db/schema';
import { backends, relaxedRateLimits } from '../testing/harness';
import { oneInstance } from '../testing/one-instance';

const limited = { max: 3, windowMs: 60_000 };
const ice = {
  kind: 'ice',
  payload: { candidate: 'candidate:1 1 udp 2122260223 192.0.2.1 54400 typ host', sdpMid: '0', sdpMLineIndex: 0 },
} as const;
const hostBody = { nodeType: 'community_host' as const, capabilities: ['chat'], maxConnections: 10, location: 'Berlin' };

describe.each(backends)('per-member limits (%s)', (backend) => {
  const suite = oneInstance(backend, {
    config: { rateLimits: { ...relaxedRateLimits, timerChange: limited, p2pConnect: limited, p2pSignal: limited } },
  });

  it('refuses a member’s timer changes past the limit with 429, storing no event; another member still changes it', async () => {
    const [alice, bob] = await suite.members('timer-alice', 'timer-bob');
    const statuses: number[] = [];
    for (const seconds of [3600, 86_400, 3600, 86_400] as const)
      statuses.push((await alice!.attempt(routes.setDisappearing, { body: { receiverId: bob!.id, seconds } })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    const refused = await alice!.attempt(routes.setDisappearing, { body: { receiverId: bob!.id, seconds: 3600 } });
    expect(refused.error).toMatchObject({ code: 'rate_limited', error: expect.stringMatching(/^Too many attempts/) });
    expect((await bob!.attempt(routes.setDisappearing, { body: { receiverId: alice!.id, seconds: 3600 } })).status).toBe(201);
    const timeline = (await bob!.call(routes.history, { query: { receiverId: alice!.id } })).events;
    expect(timeline.sort((a, b) => a.id - b.id).map((e) => e.actorId)).toEqual([alice!.id, alice!.id, alice!.id, bob!.id]);
  });

  it('refuses a member’s P2P connects past the limit with 429; another member still connects', async () => {
    const [host, joiner, other] = await suite.members('p2p-host', 'p2p-joiner', 'p2p-other');
    const { node } = await host!.call(routes.p2pHost, { body: hostBody });
    const hostSocket = await host!.connect();
    await expect.poll(async () => (await joiner!.call(routes.p2pNodes, {})).nodes.find((n) => n.id === node.id)?.status).toBe('online');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await joiner!.attempt(routes.p2pConnect, { params: { id: node.id } })).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    expect((await other!.attempt(routes.p2pConnect, { params: { id: node.id } })).status).toBe(201);
    hostSocket.close();
  });

  it('answers a member’s P2P signals past the limit with an error frame, relaying none of them; the other party still signals', async () => {
    const [host, joiner] = await suite.members('signal-host', 'signal-joiner');
    const { node } = await host!.call(routes.p2pHost, { body: hostBody });
    const hostSocket = await host!.connect();
    await expect.poll(async () => (await joiner!.call(routes.p2pNodes, {})).nodes.find((n) => n.id === node.id)?.status).toBe('online');
    const joinerSocket = await joiner!.connect();
    await joinerSocket.waitFor((f) => f.type === 'authenticated');
    const { connectionId } = await joiner!.call(routes.p2pConnect, { params: { id: node.id } });
    const relayed = (f: ServerFrame) => f.type === 'p2p_signal' && f.from === joiner!.id;
    for (let i = 0; i < 3; i++) {
      joinerSocket.send({ type: 'p2p_signal', connectionId, signal: ice });
      await hostSocket.waitFor((f) => relayed(f) && hostSocket.frames.filter(relayed).length === i + 1);
    }
    joinerSocket.send({ type: 'p2p_signal', connectionId, signal: ice });
    expect(await joinerSocket.waitFor((f) => f.type === 'error')).toEqual({
      type: 'error',
      message: expect.stringMatching(/^Too many P2P signals\. Retry in \d+ s\.$/),
    });
    // The host's own signals are its own to count: this one reaches the joiner, and by then the
    // refused frame, had it been relayed, would have reached the host before it.
    hostSocket.send({ type: 'p2p_signal', connectionId, signal: ice });
    await joinerSocket.waitFor((f) => f.type === 'p2p_signal' && f.from === host!.id);
    await joiner!.send(host!.id, 'after the refused signal');
    await hostSocket.waitFor((f) => f.type === 'chat_message');
    expect(hostSocket.frames.filter(relayed)).toHaveLength(3);
    const events = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'rate_limit'));
    expect(events.filter((e) => e.userId === joiner!.id)).toEqual([
      expect.objectContaining({ severity: 'medium', details: expect.objectContaining({ frame: 'p2p_signal' }) }),
    ]);
    hostSocket.close();
    joinerSocket.close();
  });
});
