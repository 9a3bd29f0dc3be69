/**
 * Property tests of the socket: sequences of client frames — valid ones drawn from
 * `clientFrameSchema` (packages/protocol/src/frames.ts, so a new frame type is drawn the day it is
 * added) and mutations (testing/fuzz.ts) — sent on sockets of an anonymous visitor, a member and
 * an admin.
 *
 * Properties: every frame gets exactly one reaction within FRAME_TIMEOUT_MS, a frame the server
 * sends parses with `serverFrameSchema`; an invalid frame gets an `error` frame or a close with a
 * 4xxx or 1008 code (1009 for a frame over the 1 MiB transport cap, 1007 for text that is not
 * UTF-8: both refused by the ws library itself), never 1011 nor a dropped connection; a socket
 * still open afterwards still answers a ping; the server still answers HTTP and authenticates new
 * sockets after the run, and logged no error.
 */
import { deriveLoginKey } from '@enclave/crypto';
import { clientFrameSchema, routes, serverFrameSchema, SOCKET_PATH, type ServerFrame } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { mutatedFrame, type FuzzFrame } from '../testing/fuzz';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { announce, checkProperty, countStatus, propertyTimeout, resetTally, selected, summary } from '../testing/property';
import { arbitraryOf } from '../testing/zod-arbitrary';

const FRAME_TIMEOUT_MS = 5_000;
type Role = 'anonymous' | 'member' | 'admin';

/** What became of one frame: the server's next frame, or the socket's close. */
type Reaction = { frame: ServerFrame } | { closed: number };
/** A frame from the server that `serverFrameSchema` refuses: a failure of the case that reads it. */
type Unparsed = { unparsed: string };

/** A socket that hands out its server frames and its close one reaction at a time. */
class Probe {
  private readonly queue: (Reaction | Unparsed)[] = [];
  private waiter: (() => void) | null = null;
  readonly opened: Promise<void>;

  constructor(readonly ws: WebSocket) {
    this.opened = new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.on('message', (data: Buffer) => {
      // A frame that does not parse fails the case where it is read, not here.
      const text = data.toString('utf8');
      const frame = serverFrameSchema.safeParse(safeJson(text));
      this.push(frame.success ? { frame: frame.data } : { unparsed: text });
    });
    ws.on('close', (code: number) => this.push({ closed: code }));
    // A refused frame can surface as a socket error before the close; the close is what counts.
    ws.on('error', () => undefined);
  }

  private push(r: Reaction | Unparsed): void {
    this.queue.push(r);
    this.waiter?.();
  }

  async next(what: string): Promise<Reaction> {
    const deadline = Date.now() + FRAME_TIMEOUT_MS;
    while (this.queue.length === 0) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no reaction within ${FRAME_TIMEOUT_MS} ms to ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = null;
    }
    const reaction = this.queue.shift()!;
    if ('unparsed' in reaction)
      throw new Error(`the server sent a frame outside serverFrameSchema after ${what}: ${reaction.unparsed.slice(0, 300)}`);
    // Broadcasts (presence and its snapshot after authenticating, member list changes, messages)
    // are news, not answers: skip them (each parsed by serverFrameSchema all the same).
    if ('frame' in reaction && !answers.has(reaction.frame.type)) {
      countStatus(reaction.frame.type);
      return this.next(what);
    }
    return reaction;
  }

  send(frame: FuzzFrame): void {
    if (frame.text !== undefined) this.ws.send(frame.text);
    else this.ws.send(frame.binary!, { binary: !frame.invalidUtf8 });
  }
}

/** The frames that answer a client frame; everything else the server sends is a broadcast. */
const answers = new Set<ServerFrame['type']>(['error', 'pong', 'authenticated', 'auth_failed', 'session_ended']);

/** Close codes an invalid frame may end in (see the file comment). */
const refusalClose = (code: number, frame: FuzzFrame) =>
  (code >= 4000 && code <= 4999) || code === 1008 || code === 1009 || (code === 1007 && frame.invalidUtf8 === true);

describe.each(backends)('the socket under generated frames (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const cookies: Partial<Record<Role, string>> = {};
  const members: Partial<Record<Role, TestMember>> = {};

  const login = async (member: TestMember): Promise<string> => {
    const res = await fetch(`${suite.server.url}${routes.login.path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ loginKey: await deriveLoginKey(member.token) }),
    });
    return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  };
  const open = async (role: Role): Promise<Probe> => {
    const cookie = cookies[role];
    const probe = new Probe(new WebSocket(suite.server.url.replace(/^http/, 'ws') + SOCKET_PATH, { headers: cookie ? { cookie } : {} }));
    await probe.opened;
    return probe;
  };

  beforeAll(async () => {
    const keys = await mintKeys(suite.database.db, { count: 2 });
    members.member = await TestMember.join(suite.server.url, keys[0]!, 'alice');
    members.admin = await TestMember.join(suite.server.url, keys[1]!, 'bob');
    await suite.database.db.update(users).set({ role: 'admin' }).where(eq(users.id, members.admin.id));
    cookies.member = await login(members.member);
    cookies.admin = await login(members.admin);
    resetTally();
    announce(`frames on ${backend}`);
  });

  afterAll(async () => {
    console.log(summary(`frames on ${backend}`));
  });

  const validFrame = arbitraryOf(clientFrameSchema);
  const asFuzz = (frame: unknown): FuzzFrame => ({ mutation: 'valid', text: JSON.stringify(frame) });
  const sequences = {
    'valid frames': fc.array(validFrame.map(asFuzz), { minLength: 1, maxLength: 4 }),
    'mutated frames': fc.array(
      fc.oneof({ arbitrary: mutatedFrame(validFrame), weight: 3 }, { arbitrary: validFrame.map(asFuzz), weight: 1 }),
      { minLength: 1, maxLength: 4 },
    ),
  };

  for (const role of ['anonymous', 'member', 'admin'] as const) {
    for (const [kind, sequence] of Object.entries(sequences)) {
      const id = `${kind} as ${role}`;
      it.runIf(selected(id))(
        id,
        async () => {
          await checkProperty(id, sequence, async (frames) => {
            const probe = await open(role);
            try {
              // Typing is handled once the socket has authenticated (as P2P frames).
              let authenticated = false;
              for (const frame of frames) {
                const what = `${frame.mutation} ${String(frame.text ?? '').slice(0, 120)}`;
                probe.send(frame);
                const silent = authenticated && isValidTyping(frame);
                if (silent) probe.send({ mutation: 'valid', text: JSON.stringify({ type: 'ping' }) });
                const reaction = await probe.next(what);
                if ('closed' in reaction) {
                  countStatus(`close ${reaction.closed}`);
                  expect(reaction.closed, what).not.toBe(1011);
                  if (frame.mutation === 'valid') {
                    // Only an anonymous socket's authenticate ends it, after auth_failed.
                    expect.unreachable(`a valid frame closed the socket with ${reaction.closed}: ${what}`);
                  }
                  expect(refusalClose(reaction.closed, frame), `${what} closed with ${reaction.closed}`).toBe(true);
                  return;
                }
                countStatus(reaction.frame.type);
                if (reaction.frame.type === 'authenticated') authenticated = true;
                const parsed = frame.text !== undefined && frame.binary === undefined ? safeJson(frame.text) : undefined;
                const valid = parsed !== undefined && clientFrameSchema.safeParse(parsed).success;
                if (!valid) {
                  expect(reaction.frame.type, what).toBe('error');
                  continue;
                }
                const type = (parsed as { type: string }).type;
                if (silent) {
                  // Typing is answered by nothing (relayed or dropped): the ping sent after it answers.
                  expect(reaction.frame, what).toEqual({ type: 'pong' });
                  continue;
                }
                if (type === 'ping') expect(reaction.frame).toEqual({ type: 'pong' });
                else if (type === 'p2p_signal' || type === 'p2p_close' || type === 'typing') {
                  // Drawn connection ids name no connection: refused before and after authenticating
                  // alike; typing before authenticating is refused as well.
                  expect(reaction.frame, what).toMatchObject({
                    type: 'error',
                    message: expect.stringMatching(/^(Not signed in|You are not a party of this P2P connection)$/),
                  });
                } else if (role === 'anonymous') {
                  expect(reaction.frame).toEqual({ type: 'auth_failed', message: 'Not signed in' });
                  const closed = await probe.next('the close after auth_failed');
                  expect(closed).toEqual({ closed: 4001 });
                  countStatus('close 4001');
                  return;
                } else expect(reaction.frame).toEqual({ type: 'authenticated', userId: members[role]!.id });
              }
              // Still open, still served.
              probe.send({ mutation: 'valid', text: JSON.stringify({ type: 'ping' }) });
              expect(await probe.next('the closing ping')).toEqual({ frame: { type: 'pong' } });
            } finally {
              probe.ws.close();
            }
          });
        },
        propertyTimeout,
      );
    }
  }

  it('still answers HTTP, authenticates a new socket, and logged no error', async () => {
    const health = await fetch(`${suite.server.url}${routes.health.path}`, {
      method: 'HEAD',
      signal: AbortSignal.timeout(FRAME_TIMEOUT_MS),
    });
    expect(health.status).toBe(200);
    const probe = await open('member');
    probe.send({ mutation: 'valid', text: JSON.stringify({ type: 'authenticate' }) });
    expect(await probe.next('authenticate')).toEqual({ frame: { type: 'authenticated', userId: members.member!.id } });
    probe.ws.close();
    expect(suite.server.logs.filter((l) => l.includes('"level":50') || l.includes('"level":60'))).toEqual([]);
  });
});

/** A valid typing frame: on an authenticated socket it gets no answer of its own. */
function isValidTyping(frame: FuzzFrame): boolean {
  if (frame.text === undefined || frame.binary !== undefined) return false;
  const parsed = clientFrameSchema.safeParse(safeJson(frame.text));
  return parsed.success && parsed.data.type === 'typing';
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
