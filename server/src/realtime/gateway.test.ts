import { closeCodes, routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { securityEvents } from '../db/schema';
import { mintKeys } from '../keys/service';
import { relaxedRateLimits } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** Each `it` signs up the members it connects; they share the server and its database. */
describe('real-time gateway', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });

  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);

  const onlineOf = async (viewer: TestMember, who: TestMember) => {
    const { users } = await viewer.call(routes.users, {});
    return users.find((u) => u.id === who.id)?.online;
  };

  it('authenticates a socket by its session cookie, and refuses one without', async () => {
    const alice = await join('alice-auth');
    const socket = await alice.connect();
    expect(socket.frames[0]).toEqual({ type: 'authenticated', userId: alice.id });
    socket.close();

    const stranger = new TestSocket(suite.server.url.replace('http', 'ws') + '/ws', '', []);
    await stranger.opened;
    stranger.send({ type: 'authenticate' });
    expect(await stranger.waitFor((f) => f.type === 'auth_failed')).toMatchObject({ type: 'auth_failed' });
    expect((await stranger.closed).code).toBe(closeCodes.authFailed);
    const events = await suite.database.db.select().from(securityEvents).where(eq(securityEvents.type, 'websocket_auth_failed'));
    expect(events.map((e) => e.ip)).toEqual(['127.0.0.1']);
  });

  /** Sends a ping and waits for its pong: the server answers in order, so what it sent before has arrived. */
  const pong = async (socket: TestSocket) => {
    const start = socket.frames.length;
    socket.send({ type: 'ping' });
    await socket.waitFor((f) => f.type === 'pong' && socket.frames.indexOf(f) >= start);
  };

  const announced = (socket: TestSocket, who: TestMember, online: boolean) =>
    socket.frames.filter((f) => f.type === 'presence' && (online ? f.online : f.offline).includes(who.id)).length;

  it('shows real presence across tabs and announces changes', async () => {
    const bob = await join('bob-presence');
    const carol = await join('carol-presence');
    const dave = await join('dave-presence');
    const watcher = await bob.connect();
    expect(await onlineOf(bob, carol)).toBe(false);
    const tab1 = await carol.connect();
    const tab2 = await carol.connect();
    await watcher.waitFor((f) => f.type === 'presence' && f.online.includes(carol.id));
    expect(await onlineOf(bob, carol)).toBe(true);
    tab1.close();
    await tab1.closed;
    // One tab still open: still online, and no news of it. Dave comes online after the close, so
    // the tick that announces him has written Carol's count too: her news would be in it or before.
    const daveSocket = await dave.connect();
    await watcher.waitFor((f) => f.type === 'presence' && f.online.includes(dave.id));
    expect(await onlineOf(bob, carol)).toBe(true);
    expect(announced(watcher, carol, false)).toBe(0);
    tab2.close();
    await watcher.waitFor((f) => f.type === 'presence' && f.offline.includes(carol.id));
    expect(await onlineOf(bob, carol)).toBe(false);
    expect([announced(watcher, carol, true), announced(watcher, carol, false)]).toEqual([1, 1]);
    daveSocket.close();
    watcher.close();
  });

  it('sends a snapshot of who is online after authenticating, then the changes', async () => {
    const dave = await join('dave-snapshot');
    const erin = await join('erin-snapshot');
    const daveSocket = await dave.connect();
    const first = await erin.connect();
    for (const who of [dave, erin]) await daveSocket.waitFor((f) => f.type === 'presence' && f.online.includes(who.id));
    const second = await erin.connect();
    const snapshot = await second.waitFor((f) => f.type === 'presence_snapshot');
    expect(second.frames.map((f) => f.type).slice(0, 2)).toEqual(['authenticated', 'presence_snapshot']);
    expect(snapshot.type === 'presence_snapshot' && snapshot.online).toEqual(expect.arrayContaining([dave.id, erin.id]));
    daveSocket.close();
    await second.waitFor((f) => f.type === 'presence' && f.offline.includes(dave.id));
    first.close();
    second.close();
  });

  it('announces members who come online together once each, and offline once each', async () => {
    const watcherMember = await join('watcher-coalesce');
    const crowd = await Promise.all(Array.from({ length: 8 }, (_, i) => join(`crowd-coalesce-${i}`)));
    const watcher = await watcherMember.connect();
    const sockets = await Promise.all(crowd.map((m) => m.connect()));
    await expect.poll(() => crowd.filter((m) => announced(watcher, m, true) === 0)).toEqual([]);
    for (const s of sockets) s.close();
    await expect.poll(() => crowd.filter((m) => announced(watcher, m, false) === 0)).toEqual([]);
    expect(crowd.map((m) => [announced(watcher, m, true), announced(watcher, m, false)])).toEqual(crowd.map(() => [1, 1]));
    watcher.close();
  });

  it('pushes channel messages to every member and direct messages to their two members only', async () => {
    const alice = await join('alice-push');
    const bob = await join('bob-push');
    const carol = await join('carol-push');
    const [a, b, c] = await Promise.all([alice.connect(), bob.connect(), carol.connect()]);
    const channel = await alice.send('all', 'to everyone');
    expect(channel.status).toBe(201);
    const channelId = channel.body!.message.id;
    for (const s of [a, b, c]) await s.waitFor((f) => f.type === 'chat_message' && f.message.id === channelId);

    const dm = await alice.send(bob.id, 'only bob');
    expect(dm.status).toBe(201);
    const dmId = dm.body!.message.id;
    const pushed = await b.waitFor((f) => f.type === 'chat_message' && f.message.id === dmId);
    expect(pushed.type === 'chat_message' && (await bob.decrypt([pushed.message]))[0]?.text).toBe('only bob');
    await a.waitFor((f) => f.type === 'chat_message' && f.message.id === dmId);
    // The gateway writes a delivery to every socket at once: Carol's pong comes after it would have.
    await pong(c);
    expect(c.frames.some((f) => f.type === 'chat_message' && f.message.id === dmId)).toBe(false);
    for (const s of [a, b, c]) s.close();
  });

  it('ends the sockets of a session that logs out', async () => {
    const alice = await join('alice-logout');
    const socket = await alice.connect();
    expect(await alice.call(routes.logout, {})).toEqual({ ok: true });
    await socket.waitFor((f) => f.type === 'session_ended');
    expect((await socket.closed).code).toBe(closeCodes.sessionEnded);
  });
});
