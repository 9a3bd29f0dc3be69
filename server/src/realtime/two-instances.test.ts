/**
 * The production path: two server instances over one PostgreSQL database, joined by the Redis bus.
 * A member's socket may sit on either instance; what happens on one must reach the other.
 *
 * Each `it` signs up its own members, each talking to one instance only (Alice to A, Bob and
 * Carol to B), and opens their sockets itself; they share the two servers and the database.
 */
import { createEpoch, deriveLoginKey, encryptMessage } from '@enclave/crypto';
import { closeCodes, conversationIdFor, routes, type ServerFrame } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { backends, makeDatabase, redisEnabled, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';

/** Sends a ping and waits for its pong: the server answers in order, so what it sent before has arrived. */
async function pong(socket: TestSocket): Promise<void> {
  const start = socket.frames.length;
  socket.send({ type: 'ping' });
  await socket.waitFor((f) => f.type === 'pong' && socket.frames.indexOf(f) >= start);
}

const chatFrame = (id: number) => (f: ServerFrame) => f.type === 'chat_message' && f.message.id === id;
const presenceFrame = (userId: string, online: boolean) => (f: ServerFrame) =>
  f.type === 'presence' && (online ? f.online : f.offline).includes(userId);

// Skipped unless both services are enabled: TEST_BACKENDS without postgres, or TEST_REDIS=0.
describe.runIf(backends.includes('postgres') && redisEnabled)('two instances over one PostgreSQL database and the Redis bus', () => {
  let database: Database;
  let drop: () => Promise<void>;
  let a: TestServer;
  let b: TestServer;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('postgres'));
    a = await startServer(database, { redis: true, config: { rateLimits: relaxedRateLimits } });
    b = await startServer(database, { redis: true, config: { rateLimits: relaxedRateLimits } });
  });

  afterAll(async () => {
    for (const s of sockets) s.close();
    // Each server's close also disconnects its Redis bus (publisher and subscriber) and its
    // rate-limit connection.
    await a?.close();
    await b?.close();
    await database?.close();
    await drop?.();
  });

  /** A new member who talks to `server` only. */
  const join = async (server: TestServer, name: string) =>
    TestMember.join(server.url, (await mintKeys(database.db, { count: 1 }))[0]!, name);
  /** The member's socket, on the instance the member talks to, authenticated; closed after the file. */
  const connect = async (member: TestMember) => {
    const socket = await member.connect();
    sockets.push(socket);
    expect(socket.frames).toContainEqual({ type: 'authenticated', userId: member.id });
    return socket;
  };

  const onlineOf = async (viewer: TestMember, who: TestMember) => {
    const res = await viewer.attempt(routes.users, {});
    expect(res.status).toBe(200);
    return res.body!.users.find((u) => u.id === who.id)?.online;
  };

  it('tells Bob on B that Alice came online on A', async () => {
    const alice = await join(a, 'alice-online');
    const bob = await join(b, 'bob-online');
    const bobSocket = await connect(bob);
    expect(await onlineOf(bob, alice)).toBe(false);
    await connect(alice);
    await bobSocket.waitFor(presenceFrame(alice.id, true));
  });

  it('delivers a general-channel message sent through A to Bob on B, and Bob reads it', async () => {
    const alice = await join(a, 'alice-channel');
    const bob = await join(b, 'bob-channel');
    const carol = await join(b, 'carol-channel');
    const [bobSocket, carolSocket] = [await connect(bob), await connect(carol)];
    const text = `hello from A to the channel ✓ ${Date.now()}`;
    const res = await alice.send('all', text);
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const sent = res.body!.message;
    const frame = await bobSocket.waitFor(chatFrame(sent.id));
    if (frame.type !== 'chat_message') throw new Error('unreachable');
    expect(frame.message).toEqual(sent);
    const [read] = await bob.decrypt([frame.message]);
    expect(read).toEqual({ id: sent.id, senderId: alice.id, text });
    // Carol is in the channel too.
    await carolSocket.waitFor(chatFrame(sent.id));
  });

  it('delivers a direct message from Alice (A) to Bob (B), and not to Carol (B)', async () => {
    const alice = await join(a, 'alice-dm');
    const bob = await join(b, 'bob-dm');
    const carol = await join(b, 'carol-dm');
    const [aliceSocket, bobSocket, carolSocket] = [await connect(alice), await connect(bob), await connect(carol)];
    const text = `just for Bob ${Date.now()}`;
    const res = await alice.send(bob.id, text);
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const sent = res.body!.message;
    const frame = await bobSocket.waitFor(chatFrame(sent.id));
    if (frame.type !== 'chat_message') throw new Error('unreachable');
    expect(await bob.decrypt([frame.message])).toEqual([{ id: sent.id, senderId: alice.id, text }]);
    // The sender's own socket on A gets it too (her other tabs).
    await aliceSocket.waitFor(chatFrame(sent.id));
    // B writes a delivery to all its sockets at once, and Bob (on B) has it: Carol's pong comes after it would have.
    await pong(carolSocket);
    expect(carolSocket.frames.filter(chatFrame(sent.id))).toEqual([]);
    // Carol cannot read it from history either.
    const peek = await carol.attempt(routes.history, { query: { receiverId: bob.id } });
    expect(peek.status).toBe(200);
    expect(peek.body!.messages.map((m) => m.id)).not.toContain(sent.id);
  });

  it("shows Alice online in Bob's member list at B, then offline with a presence frame once her socket closes", async () => {
    const alice = await join(a, 'alice-offline');
    const bob = await join(b, 'bob-offline');
    const bobSocket = await connect(bob);
    const aliceSocket = await connect(alice);
    await bobSocket.waitFor(presenceFrame(alice.id, true));
    expect(await onlineOf(bob, alice)).toBe(true);
    const start = bobSocket.frames.length;
    aliceSocket.close();
    await aliceSocket.closed;
    await bobSocket.waitFor((f) => bobSocket.frames.indexOf(f) >= start && presenceFrame(alice.id, false)(f));
    expect(await onlineOf(bob, alice)).toBe(false);
  });

  it("logging out on A ends that session's socket held by B with session_ended, and only that session", async () => {
    const carol = await join(b, 'carol-logout');
    const carolSocket = await connect(carol);
    // Carol signs in a second time (another browser, with no cookie of its own yet): that
    // session's socket is on B, and the logout of that same session goes to A.
    const login = await new TestMember.Anonymous(a.url).attempt(routes.login, { body: { loginKey: await deriveLoginKey(carol.token) } });
    expect(login.status).toBe(200);
    expect(login.body!.user.id).toBe(carol.id);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    expect(cookie).toMatch(/^enclave_session=./);

    const second = new TestSocket(`${b.url.replace(/^http/, 'ws')}/ws`, cookie, []);
    sockets.push(second);
    await second.opened;
    second.send({ type: 'authenticate' });
    await second.waitFor((f) => f.type === 'authenticated' && f.userId === carol.id);

    const out = await new TestMember.Anonymous(a.url).attempt(routes.logout, {}, { cookie });
    expect(out.status).toBe(200);
    const ended = await second.waitFor((f) => f.type === 'session_ended');
    expect(ended).toMatchObject({ type: 'session_ended', reason: 'logout' });
    expect((await second.closed).code).toBe(closeCodes.sessionEnded);
    // The session is gone on both instances.
    for (const server of [a, b]) {
      expect((await new TestMember.Anonymous(server.url).attempt(routes.me, {}, { cookie })).status).toBe(401);
    }

    // Carol's first session, and its socket on B, are untouched. B ended the sessions of that event
    // at once, the second socket's among them: Carol's pong comes after her own end would have.
    await pong(carolSocket);
    expect(carolSocket.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
    expect(carolSocket.ws.readyState).toBe(carolSocket.ws.OPEN);
    expect((await carol.attempt(routes.me, {})).status).toBe(200);
  });

  it("ending one of Dan's devices through A closes that session's socket held by B, through the bus", async () => {
    const dan = await join(a, 'dan-device');
    const login = await new TestMember.Anonymous(b.url).attempt(
      routes.login,
      { body: { loginKey: await deriveLoginKey(dan.token) } },
      { 'user-agent': 'Dan phone' },
    );
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const phone = new TestSocket(`${b.url.replace(/^http/, 'ws')}/ws`, cookie, []);
    sockets.push(phone);
    await phone.opened;
    phone.send({ type: 'authenticate' });
    await phone.waitFor((f) => f.type === 'authenticated' && f.userId === dan.id);

    const { sessions } = await dan.call(routes.sessions, {});
    const target = sessions.find((s) => s.userAgent === 'Dan phone')!;
    expect(await dan.call(routes.revokeSession, { params: { id: target.id } })).toEqual({ revoked: 1 });
    // B hears of it on the bus and pushes it: nothing more comes from the phone.
    expect(await phone.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
    expect((await phone.closed).code).toBe(closeCodes.sessionEnded);
    expect((await new TestMember.Anonymous(b.url).attempt(routes.me, {}, { cookie })).status).toBe(401);
    expect((await dan.attempt(routes.me, {})).status).toBe(200);
  });

  it('delivers a direct message addressed with an upper-case spelling of the peer id, to the peer on B', async () => {
    const alice = await join(a, 'alice-upper');
    const bob = await join(b, 'bob-upper');
    const bobSocket = await connect(bob);
    // The server accepts upper-case UUIDs as receiverId (z.uuid() allows them). The same member
    // must then get the message, in the same conversation as always.
    // Built by hand, so that the upper-case spelling is what goes over the wire at every step
    // (TestMember.send goes through the client core, which may spell it otherwise).
    const receiverId = bob.id.toUpperCase();
    const members = await alice.attempt(routes.conversationMembers, { query: { receiverId } });
    expect(members.status).toBe(200);
    const m = members.body!;
    const { epoch, shares } = await createEpoch({
      conversationId: m.conversationId,
      senderId: alice.id,
      membershipVersion: m.membershipVersion,
      recipients: m.members,
      signKey: alice.identity.signKey,
    });
    const up = await alice.attempt(routes.createEpoch, {
      body: { epochId: epoch.epochId, receiverId, membershipVersion: m.membershipVersion, shares },
    });
    expect(up.status, JSON.stringify(up.error)).toBe(201);
    const encryptedContent = await encryptMessage({ epoch, index: 0, plaintext: 'upper-case address', signKey: alice.identity.signKey });
    const res = await alice.attempt(routes.sendMessage, {
      body: { receiverId, epochId: epoch.epochId, index: 0, encryptedContent, messageType: 'text' },
    });
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    const sent = res.body!.message;
    expect.soft(sent.conversationId, 'the one conversation of Alice and Bob').toBe(conversationIdFor(alice.id, bob.id));
    expect
      .soft(
        (await bob.history(alice.id)).map((msg) => msg.id),
        "Bob's history with Alice",
      )
      .toContain(sent.id);
    await expect(bobSocket.waitFor(chatFrame(sent.id)), "frame on Bob's socket at B").resolves.toBeTruthy();
  });

  // A check over the whole file: it comes last so that it sees every test's traffic (alone, it
  // checks only the two servers' start).
  it('logged no error on either instance', () => {
    for (const server of [a, b]) expect(server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
