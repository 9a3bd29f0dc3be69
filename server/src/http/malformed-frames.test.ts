/**
 * Malformed WebSocket frames (docs/security.md §6): every one is answered with an error frame that
 * says what is wrong, and the socket stays open and served — never a dropped connection.
 */
import { randomUUID } from 'node:crypto';
import type { ServerFrame } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relaxedRateLimits } from '../testing/harness';
import { TestSocket, type TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { deep } from './malformed-input/table';

type FrameCase = { name: string; send: (s: TestSocket) => void; expectMessage: RegExp };

const frameCases: FrameCase[] = [
  { name: 'non-JSON text', send: (s) => s.send('hello'), expectMessage: /Frame is not valid JSON/ },
  { name: 'an empty text frame', send: (s) => s.send(''), expectMessage: /Frame is not valid JSON/ },
  { name: 'JSON of the wrong type: []', send: (s) => s.send('[]'), expectMessage: /Unknown or malformed frame/ },
  { name: 'JSON of the wrong type: 42', send: (s) => s.send('42'), expectMessage: /Unknown or malformed frame/ },
  { name: 'JSON null', send: (s) => s.send('null'), expectMessage: /Unknown or malformed frame/ },
  { name: 'an object without a type', send: (s) => s.send({}), expectMessage: /Unknown or malformed frame/ },
  { name: 'an unknown type', send: (s) => s.send({ type: 'subscribe', channel: 'general' }), expectMessage: /Unknown or malformed frame/ },
  { name: 'a type of the wrong type', send: (s) => s.send({ type: 42 }), expectMessage: /Unknown or malformed frame/ },
  {
    name: 'authenticate with an extra field (an access token)',
    send: (s) => s.send({ type: 'authenticate', accessToken: 'a'.repeat(64) }),
    expectMessage: /Unknown or malformed frame: Unrecognized key.*"accessToken"/,
  },
  { name: 'ping with an extra field', send: (s) => s.send({ type: 'ping', at: 1 }), expectMessage: /Unrecognized key.*"at"/ },
  {
    name: 'a binary frame',
    send: (s) => s.ws.send(Buffer.from(JSON.stringify({ type: 'ping' })), { binary: true }),
    expectMessage: /Frames must be JSON text of at most 40960 bytes/,
  },
  {
    name: 'a 41 KB frame',
    send: (s) => s.send({ type: 'ping', pad: 'x'.repeat(41 * 1024) }),
    expectMessage: /Frames must be JSON text of at most 40960 bytes/,
  },
  {
    name: 'a lone surrogate',
    send: (s) => s.send('{"type":"typing","conversationId":"\\udc00"}'),
    expectMessage: /^conversationId: must be well-formed Unicode text/,
  },
  {
    name: 'a NUL character',
    send: (s) => s.send({ type: 'p2p_close', connectionId: '\u0000' }),
    expectMessage: /^connectionId: must not contain the NUL character$/,
  },
  {
    name: 'nested 5,000 deep',
    send: (s) => s.send(`{"type":"ping","x":${deep(5_000)}}`),
    expectMessage: /^Frame is nested too deeply \(at most 64 levels\)$/,
  },
  {
    name: 'p2p_signal with an SDP over 16 KiB',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'offer', payload: 'v'.repeat(16 * 1024 + 1) } }),
    expectMessage: /Unknown or malformed frame: Too big/,
  },
  {
    name: 'p2p_signal with an ICE candidate of the wrong shape',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'ice', payload: { candidate: 1 } } }),
    expectMessage: /Unknown or malformed frame: .*expected string/,
  },
  {
    name: 'p2p_signal of an unknown kind',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'bye', payload: '' } }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    name: 'p2p_close without a connection id',
    send: (s) => s.send({ type: 'p2p_close', connectionId: 'x' }),
    expectMessage: /Unknown or malformed frame: must be a connection id/,
  },
  {
    name: 'typing without a conversation id',
    send: (s) => s.send({ type: 'typing' }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    name: 'typing in something that is not a conversation id',
    send: (s) => s.send({ type: 'typing', conversationId: 'dm:x:y' }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    // Typing carries ids only: a draft's text has no field to travel in.
    name: 'typing with the text being typed',
    send: (s) => s.send({ type: 'typing', conversationId: 'general', text: 'draft' }),
    expectMessage: /Unrecognized key.*"text"/,
  },
];

describe('malformed WebSocket frames get an error frame and the socket stays open (pglite)', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let socket: TestSocket;

  beforeAll(async () => {
    [alice] = await suite.members('alice');
    socket = await alice.connect();
    expect(socket.frames).toContainEqual({ type: 'authenticated', userId: alice.id });
  });

  afterAll(async () => {
    socket?.close();
  });

  /** The first frame received after the `start`-th that matches. */
  const next = (s: TestSocket, start: number, match: (f: ServerFrame) => boolean) =>
    s.waitFor((fr) => s.frames.indexOf(fr) >= start && match(fr), 3000);

  for (const { name, send, expectMessage } of frameCases)
    it(name, async () => {
      const start = socket.frames.length;
      send(socket);
      const error = await next(socket, start, (fr) => fr.type === 'error');
      expect(error.type === 'error' && error.message).toMatch(expectMessage);
      // Still open and still served.
      expect(socket.ws.readyState).toBe(socket.ws.OPEN);
      const afterError = socket.frames.length;
      socket.send({ type: 'ping' });
      await next(socket, afterError, (fr) => fr.type === 'pong');
      expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    });

  it('still authenticates the same socket after all of that', async () => {
    const start = socket.frames.length;
    socket.send({ type: 'authenticate' });
    expect(await next(socket, start, (fr) => fr.type === 'authenticated')).toEqual({ type: 'authenticated', userId: alice.id });
  });

  it('answers authenticate on a socket without a cookie with auth_failed, then closes it with 4001', async () => {
    const anon = new TestSocket(suite.server.url.replace(/^http/, 'ws') + '/ws', '', []);
    await anon.opened;
    anon.send({ type: 'authenticate' });
    const failed = await anon.waitFor((fr) => fr.type === 'auth_failed');
    expect(failed).toEqual({ type: 'auth_failed', message: 'Not signed in' });
    expect((await anon.closed).code).toBe(4001);
  });

  it('answers malformed frames on a socket without a cookie too, without closing it', async () => {
    const anon = new TestSocket(suite.server.url.replace(/^http/, 'ws') + '/ws', '', []);
    await anon.opened;
    anon.send('not json');
    expect(await anon.waitFor((fr) => fr.type === 'error')).toEqual({ type: 'error', message: 'Frame is not valid JSON' });
    anon.send({ type: 'ping' });
    await anon.waitFor((fr) => fr.type === 'pong');
    expect(anon.ws.readyState).toBe(anon.ws.OPEN);
    anon.close();
  });

  it('logged no error', () => {
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });

  it('closes a socket that sends a frame over the 1 MiB transport cap cleanly (1009), without logging an error', async () => {
    // Beyond maxPayload the ws library ends the connection itself; that close must at least be a
    // clean "message too big", and a client's oversize frame is not a server error.
    const logged = suite.server.logs.length;
    const big = await alice.connect();
    big.ws.send('x'.repeat(2 * 1024 * 1024));
    expect((await big.closed).code).toBe(1009);
    expect(suite.server.logs.slice(logged).filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
