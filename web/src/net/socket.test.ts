import { closeCodes } from '@enclave/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PING_INTERVAL_MS } from './socket';
import { setup, USER } from './socket-fakes';

/** Lets queued close events run. */
const flush = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('RealtimeSocket', () => {
  it('goes connecting → connected → authenticating → authenticated, asking with the cookie only', () => {
    const t = setup();
    t.socket.start();
    expect(t.sockets).toHaveLength(1);
    expect(t.latest().url).toBe('ws://enclave.test/ws');
    expect(t.states).toEqual(['connecting']);
    t.latest().open();
    expect(t.latest().sent).toEqual([{ type: 'authenticate' }]);
    t.latest().receive({ type: 'authenticated', userId: USER });
    expect(t.states).toEqual(['connecting', 'connected', 'authenticating', 'authenticated']);
    expect(t.socket.state).toBe('authenticated');
    expect(t.authentications()).toBe(1);
  });

  it('reconnects after a drop within a second, and announces each new authentication', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().drop();
    expect(t.socket.state).toBe('disconnected');

    // The last connection was healthy: each attempt waits [250 ms, 1 s], 625 ms here.
    for (const delay of [625, 625, 625]) {
      const before = t.sockets.length;
      await vi.advanceTimersByTimeAsync(delay - 1);
      expect(t.sockets).toHaveLength(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(t.sockets).toHaveLength(before + 1);
      expect(t.socket.state).toBe('connecting');
      t.latest().drop();
    }

    // Back at last: the chat is told, so it can catch up on what it missed.
    await vi.advanceTimersByTimeAsync(625);
    t.authenticate();
    expect(t.socket.state).toBe('authenticated');
    expect(t.authentications()).toBe(2);

    // A success resets the back-off: the next drop waits 625 ms again.
    t.latest().drop();
    const before = t.sockets.length;
    await vi.advanceTimersByTimeAsync(625);
    expect(t.sockets).toHaveLength(before + 1);
  });

  it('reconnects at once when the server goes away (1001), and announces the new authentication', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().drop(1001);
    // No back-off: the next connection is already being opened.
    expect(t.sockets).toHaveLength(2);
    expect(t.socket.state).toBe('connecting');
    t.authenticate();
    expect(t.authentications()).toBe(2);
    // Should that connection fail, the back-off applies from its start.
    t.latest().drop();
    await vi.advanceTimersByTimeAsync(624);
    expect(t.sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sockets).toHaveLength(3);
  });

  it('waits for the back-off after a 1001 that came before authentication, so it cannot loop', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().drop(1001);
    expect(t.sockets).toHaveLength(2);
    t.latest().open();
    t.latest().drop(1001);
    expect(t.sockets).toHaveLength(2);
    // The server answered and refused: the slow back-off, [1 s, 2 s] first.
    await vi.advanceTimersByTimeAsync(1499);
    expect(t.sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.sockets).toHaveLength(3);
  });

  it('announces an authenticated frame the server sends again on an open socket, so the chat catches up', () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().receive({ type: 'authenticated', userId: USER });
    expect(t.authentications()).toBe(2);
    expect(t.sockets).toHaveLength(1);
    expect(t.socket.state).toBe('authenticated');
  });

  it('never waits more than 10 s between attempts, however long the server is down', async () => {
    const t = setup(() => 0.999);
    t.socket.start();
    for (let i = 0; i < 50; i++) {
      t.latest().drop();
      const before = t.sockets.length;
      await vi.advanceTimersByTimeAsync(10_000);
      expect(t.sockets).toHaveLength(before + 1);
    }
  });

  it('reports auth_failed, closes, and tries again after the back-off', async () => {
    const t = setup();
    t.socket.start();
    t.latest().open();
    t.latest().receive({ type: 'auth_failed', message: 'Authentication failed' });
    expect(t.socket.state).toBe('auth_failed');
    expect(t.latest().closedWith).toEqual({ code: 1000, reason: 'authentication failed' });
    await flush();
    // The failure stays visible while waiting (not "disconnected"), through the slow back-off.
    expect(t.socket.state).toBe('auth_failed');
    await vi.advanceTimersByTimeAsync(1000);
    expect(t.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(500);
    expect(t.sockets).toHaveLength(2);
    expect(t.socket.state).toBe('connecting');
    t.authenticate();
    expect(t.states.slice(-4)).toEqual(['connecting', 'connected', 'authenticating', 'authenticated']);
  });

  it('does not come back after the session ended', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().receive({ type: 'session_ended', reason: 'banned', message: 'You have been banned' });
    t.latest().drop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.sockets).toHaveLength(1);
    expect(t.socket.state).toBe('disconnected');
    expect(t.frames.map((f) => f.type)).toEqual(['authenticated', 'session_ended']);
  });

  it('reconnects at once when the browser is back online, and drops the socket when it goes offline', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.network.dispatchEvent(new Event('offline'));
    expect(t.latest().closedWith).toEqual({ code: closeCodes.browserOffline, reason: 'browser offline' });
    await flush();
    expect(t.socket.state).toBe('disconnected');
    t.network.dispatchEvent(new Event('online'));
    expect(t.sockets).toHaveLength(2);
    expect(t.socket.state).toBe('connecting');
    // The skipped back-off timer does not open a third socket later.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(t.sockets).toHaveLength(2);
  });

  it('pings while authenticated and closes a connection that stopped answering', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS);
    expect(t.latest().sent.at(-1)).toEqual({ type: 'ping' });
    t.latest().receive({ type: 'pong' });
    await vi.advanceTimersByTimeAsync(PING_INTERVAL_MS);
    expect(t.latest().closedWith).toBeNull();
    // No answer to this ping within 10 s: the connection is dead though not closed.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(t.latest().closedWith).toEqual({ code: 4000, reason: 'no pong' });
    await flush();
    expect(t.socket.state).toBe('disconnected');
    await vi.advanceTimersByTimeAsync(625);
    expect(t.sockets).toHaveLength(2);
  });

  it('ignores frames that are not JSON or not in the protocol', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.latest().receive('not json');
    t.latest().receive(JSON.stringify({ type: 'made_up' }));
    expect(t.frames.map((f) => f.type)).toEqual(['authenticated']);
    expect(t.socket.state).toBe('authenticated');
  });

  it('reads a newer server’s frames with fields it does not know, and an older one’s without expiresAt, clientMessageId or targetId (docs/architecture.md §3)', () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    const message = {
      id: 7,
      conversationId: 'general',
      senderId: USER,
      senderUsername: 'alice',
      epochId: '00000000-0000-4000-8000-0000000000e1',
      index: 0,
      encryptedContent: 'ciphertext',
      timestamp: '2026-11-26T15:00:00.000Z',
    };
    t.latest().receive(JSON.stringify({ type: 'chat_message', message: { ...message, expiresAt: null, reactions: [] }, priority: 1 }));
    t.latest().receive(JSON.stringify({ type: 'chat_message', message }));
    expect(t.frames.slice(1)).toEqual([
      { type: 'chat_message', message: { ...message, expiresAt: null, clientMessageId: null, targetId: null } },
      { type: 'chat_message', message: { ...message, expiresAt: null, clientMessageId: null, targetId: null } },
    ]);
  });

  it('stops for good: idle, socket closed, no reconnect, no network listeners', async () => {
    const t = setup();
    const removed = vi.spyOn(t.network, 'removeEventListener');
    const hidden = vi.spyOn(t.page, 'removeEventListener');
    t.socket.start();
    t.authenticate();
    t.socket.stop();
    expect(t.socket.state).toBe('idle');
    expect(t.latest().closedWith).toEqual({ code: 1000, reason: 'client stopped' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(t.sockets).toHaveLength(1);
    expect(removed.mock.calls.map(([type]) => type).sort()).toEqual(['offline', 'online']);
    expect(hidden.mock.calls.map(([type]) => type)).toEqual(['visibilitychange']);
    expect(t.socket.send({ type: 'ping' })).toBe(false);
  });
});
