/**
 * The P2P network on one instance, on each backend: the node registry (online exactly while the
 * host's socket is open), connecting and its slots, signaling between the two parties only, the
 * host's address hidden unless published, bans and emergency mode.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { errorTexts, routes, type ServerFrame } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { p2pConnections, presence, securityEvents, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits, startServer } from '../testing/harness';
import { TestMember, type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { turnCredential } from './turn';

const hostBody = { nodeType: 'community_host' as const, capabilities: ['chat', 'files'], maxConnections: 10, location: 'Berlin' };
const offer = { kind: 'offer', payload: 'v=0\r\no=- 1 2 IN IP4 0.0.0.0\r\n' } as const;
const answer = { kind: 'answer', payload: 'v=0\r\no=- 3 4 IN IP4 0.0.0.0\r\n' } as const;
const ice = {
  kind: 'ice',
  payload: { candidate: 'candidate:1 1 udp 2122260223 192.0.2.1 54400 typ host', sdpMid: '0', sdpMLineIndex: 0 },
} as const;

const isConnection = (id: string, state: string) => (f: ServerFrame) =>
  f.type === 'p2p_connection' && f.connectionId === id && f.state === state;

describe.each(backends)('the P2P network (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let carol: TestMember;
  let dave: TestMember;
  const sockets: TestSocket[] = [];
  /** The member's socket, once their presence is written (the gateway writes it per tick, then announces it). */
  const open = async (m: TestMember) => {
    const s = await m.connect();
    sockets.push(s);
    await s.waitFor((f) => (f.type === 'presence' || f.type === 'presence_snapshot') && f.online.includes(m.id));
    return s;
  };
  const nodes = async (m: TestMember) => (await m.call(routes.p2pNodes, {})).nodes;
  const nodeOf = async (m: TestMember, host: TestMember) => (await nodes(m)).find((n) => n.hostId === host.id);
  /** Presence is written just after `authenticated`: waits until the list says so. */
  const until = (probe: () => Promise<boolean>) => expect.poll(probe, { timeout: 10_000, interval: 20 }).toBe(true);

  beforeAll(async () => {
    const keys = await mintKeys(suite.database.db, { count: 4 });
    const join = (i: number, name: string) => TestMember.join(suite.server.url, keys[i]!, name);
    [alice, bob, carol, dave] = await Promise.all([join(0, 'alice'), join(1, 'bob'), join(2, 'carol'), join(3, 'dave')]);
  });
  afterAll(() => {
    for (const s of sockets) s.close();
  });

  it('hosts, lists, connects, signals between the two parties only, and stops hosting', async () => {
    const hosted = await alice.attempt(routes.p2pHost, { body: hostBody });
    expect(hosted.status).toBe(201);
    // No socket: listed offline, and cannot be joined.
    expect(hosted.body?.node).toMatchObject({
      hostId: alice.id,
      hostUsername: 'alice',
      status: 'offline',
      currentConnections: 0,
      capabilities: ['chat', 'files'],
      location: 'Berlin',
      ipAddress: null,
      port: null,
    });
    const nodeId = hosted.body!.node.id;
    const offline = await bob.attempt(routes.p2pConnect, { params: { id: nodeId } });
    expect(offline.status).toBe(409);
    expect(offline.error?.code).toBe('node_offline');

    const aliceSocket = await open(alice);
    await until(async () => (await nodeOf(bob, alice))?.status === 'online');
    expect((await alice.attempt(routes.p2pConnect, { params: { id: nodeId } })).status).toBe(409);

    const bobSocket = await open(bob);
    const { connectionId, hostId } = await bob.call(routes.p2pConnect, { params: { id: nodeId } });
    expect(hostId).toBe(alice.id);
    await aliceSocket.waitFor(isConnection(connectionId, 'requested'));
    // Requested, not yet accepted: it does not count.
    expect((await nodeOf(bob, alice))?.currentConnections).toBe(0);

    bobSocket.send({ type: 'p2p_signal', connectionId, signal: offer });
    expect(await aliceSocket.waitFor((f) => f.type === 'p2p_signal')).toEqual({
      type: 'p2p_signal',
      connectionId,
      from: bob.id,
      signal: offer,
    });
    // The joiner does not answer, nor the host offer.
    bobSocket.send({ type: 'p2p_signal', connectionId, signal: answer });
    await bobSocket.waitFor((f) => f.type === 'error' && f.message === 'Only the host sends the answer');
    aliceSocket.send({ type: 'p2p_signal', connectionId, signal: answer });
    expect(await bobSocket.waitFor((f) => f.type === 'p2p_signal')).toEqual({
      type: 'p2p_signal',
      connectionId,
      from: alice.id,
      signal: answer,
    });
    await bobSocket.waitFor(isConnection(connectionId, 'open'));
    await aliceSocket.waitFor(isConnection(connectionId, 'open'));
    expect((await nodeOf(carol, alice))?.currentConnections).toBe(1);
    aliceSocket.send({ type: 'p2p_signal', connectionId, signal: ice });
    await bobSocket.waitFor((f) => f.type === 'p2p_signal' && f.signal.kind === 'ice');

    // A third member's signal is refused, recorded, and reaches no one.
    const carolSocket = await open(carol);
    carolSocket.send({ type: 'p2p_signal', connectionId, signal: ice });
    await carolSocket.waitFor((f) => f.type === 'error' && f.message === 'You are not a party of this P2P connection');
    carolSocket.send({ type: 'p2p_close', connectionId });
    // Her close is refused as her signal was, before it could be announced to anyone.
    await carolSocket.waitFor(
      () => carolSocket.frames.filter((f) => f.type === 'error' && f.message === 'You are not a party of this P2P connection').length === 2,
    );
    await until(
      async () => (await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'p2p_signal_refused'))).length > 0,
    );
    const [event] = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'p2p_signal_refused'));
    expect(event).toMatchObject({ userId: carol.id, severity: 'medium' });
    expect(aliceSocket.frames.filter((f) => f.type === 'p2p_signal')).toHaveLength(1);
    expect(bobSocket.frames.filter((f) => f.type === 'p2p_signal')).toHaveLength(2);
    expect((await nodeOf(carol, alice))?.currentConnections).toBe(1);

    // The joiner's socket gone: the connection no longer counts.
    bobSocket.close();
    await until(async () => (await nodeOf(carol, alice))?.currentConnections === 0);
    // The host's socket gone: offline.
    aliceSocket.close();
    await until(async () => (await nodeOf(carol, alice))?.status === 'offline');

    expect((await alice.call(routes.p2pStopHosting, {})).ok).toBe(true);
    expect(await nodeOf(carol, alice)).toBeUndefined();
  });

  it('never shows the host’s address unless the host publishes it', async () => {
    await alice.call(routes.p2pHost, { body: hostBody });
    const [hidden] = (await nodes(bob)).filter((n) => n.hostId === alice.id);
    expect(hidden).toMatchObject({ ipAddress: null, port: null });
    const published = await alice.call(routes.p2pHost, { body: { ...hostBody, publishAddress: true } });
    expect(published.node.ipAddress).toBe('127.0.0.1');
    expect((await nodeOf(bob, alice))?.ipAddress).toBe('127.0.0.1');
    // One node per host: hosting again updates it.
    expect((await nodes(bob)).filter((n) => n.hostId === alice.id)).toHaveLength(1);
    await alice.call(routes.p2pHost, { body: hostBody });
    expect((await nodeOf(bob, alice))?.ipAddress).toBeNull();
    await alice.call(routes.p2pStopHosting, {});
  });

  it('refuses the 51st joiner of a node of 50 with a clear 409; a slot frees when a joiner leaves', async () => {
    const aliceSocket = await open(alice);
    const { node } = await alice.call(routes.p2pHost, { body: { ...hostBody, maxConnections: 50 } });
    // Fifty joiners online, each connected: filled in the database (registering fifty real members is slow).
    const joiners = await suite.database.db
      .insert(users)
      .values(
        Array.from({ length: 50 }, (_, i) => ({
          username: `joiner${i}`,
          loginKeyHash: randomBytes(32).toString('hex'),
          encryptionPublicKey: 'x',
          signingPublicKey: 'x',
          encryptedPrivateKey: 'x',
        })),
      )
      .returning({ id: users.id });
    await suite.database.db
      .insert(presence)
      .values(joiners.map((j) => ({ instanceId: `fixture-${randomUUID()}`, userId: j.id, sockets: 1 })));
    await suite.database.db
      .insert(p2pConnections)
      .values(joiners.map((j) => ({ nodeId: node.id, joinerId: j.id, status: 'open' as const })));
    await until(async () => (await nodeOf(bob, alice))?.currentConnections === 50);

    const full = await bob.attempt(routes.p2pConnect, { params: { id: node.id } });
    expect(full.status).toBe(409);
    expect(full.error).toEqual({ code: 'node_full', error: 'This node is full: it accepts at most 50 connections' });

    await suite.database.db.delete(presence).where(eq(presence.userId, joiners[0]!.id));
    expect((await bob.attempt(routes.p2pConnect, { params: { id: node.id } })).status).toBe(201);
    expect((await nodeOf(bob, alice))?.currentConnections).toBe(49);
    await alice.call(routes.p2pStopHosting, {});
    aliceSocket.close();
  });

  it('a ban removes the member’s node and closes their connections; the banned cannot host or join', async () => {
    const [daveSocket, bobSocket, carolSocket] = [await open(dave), await open(bob), await open(carol)];
    const { node: daveNode } = await dave.call(routes.p2pHost, { body: hostBody });
    const { node: carolNode } = await carol.call(routes.p2pHost, { body: hostBody });
    await until(async () => (await nodeOf(bob, dave))?.status === 'online' && (await nodeOf(bob, carol))?.status === 'online');
    const toDave = await bob.call(routes.p2pConnect, { params: { id: daveNode.id } });
    const fromDave = await dave.call(routes.p2pConnect, { params: { id: carolNode.id } });

    await new TestMember.Anonymous(suite.server.url).call(
      routes.creatorBan,
      { body: { userId: dave.id, reason: 'p2p test' } },
      creatorHeaders,
    );
    await bobSocket.waitFor(isConnection(toDave.connectionId, 'closed'));
    await carolSocket.waitFor(isConnection(fromDave.connectionId, 'closed'));
    await daveSocket.closed;
    expect(await nodeOf(bob, dave)).toBeUndefined();
    expect((await dave.attempt(routes.p2pHost, { body: hostBody })).status).toBe(401);
    expect((await dave.attempt(routes.p2pConnect, { params: { id: carolNode.id } })).status).toBe(401);
    // Their old connection is gone: the host's signals on it are refused.
    carolSocket.send({ type: 'p2p_signal', connectionId: fromDave.connectionId, signal: answer });
    await carolSocket.waitFor((f) => f.type === 'error' && f.message === 'You are not a party of this P2P connection');
    await carol.call(routes.p2pStopHosting, {});
  });

  it('emergency mode refuses hosting, connecting and signaling', async () => {
    const creator = new TestMember.Anonymous(suite.server.url);
    await creator.call(routes.setCreatorAccount, { body: { userId: alice.id, isCreatorAccount: true } }, creatorHeaders);
    await creator.call(routes.setCreatorAccount, { body: { userId: carol.id, isCreatorAccount: true } }, creatorHeaders);
    const carolSocket = await open(carol);
    const { node } = await carol.call(routes.p2pHost, { body: hostBody });
    await until(async () => (await nodeOf(alice, carol))?.status === 'online');
    const { connectionId } = await alice.call(routes.p2pConnect, { params: { id: node.id } });
    await creator.call(routes.emergencyShutdown, {}, creatorHeaders);
    try {
      for (const res of [
        await alice.attempt(routes.p2pHost, { body: hostBody }),
        await alice.attempt(routes.p2pConnect, { params: { id: node.id } }),
      ]) {
        expect(res.status).toBe(403);
        expect(res.error?.error).toBe(errorTexts.p2pSuspended);
      }
      carolSocket.send({ type: 'p2p_signal', connectionId, signal: answer });
      await carolSocket.waitFor((f) => f.type === 'error' && f.message === errorTexts.p2pSuspended);
    } finally {
      await creator.call(routes.liftEmergency, {}, creatorHeaders);
    }
  });

  it('answers the ICE servers of the configuration (none by default)', async () => {
    expect(await alice.call(routes.p2pConfig, {})).toEqual({ iceServers: [], expiresAt: null });
  });

  it('hands each member a TURN credential of their own when the server shares a secret with the TURN server', async () => {
    const iceServers = ['stun:turn.example.org:3478', 'turn:turn.example.org:3478?transport=udp'];
    const withTurn = await startServer(suite.database, {
      config: { rateLimits: relaxedRateLimits, iceServers, turnSecret: 'north-wind-shared-secret' },
    });
    try {
      const [key] = await mintKeys(suite.database.db, { count: 1 });
      const erin = await TestMember.join(withTurn.url, key!, 'erin-turn');
      const before = Date.now();
      const answer = await erin.call(routes.p2pConfig, {});
      const expiresAtS = Date.parse(answer.expiresAt!) / 1000;
      expect(expiresAtS * 1000).toBeGreaterThanOrEqual(before);
      expect(answer.iceServers).toEqual([
        { urls: iceServers[0] },
        { urls: iceServers[1], ...turnCredential('north-wind-shared-secret', erin.id, expiresAtS) },
      ]);
      expect(answer.iceServers[1]!.username).toBe(`${expiresAtS}:${erin.id}`);
    } finally {
      await withTurn.close();
    }
  });
});
