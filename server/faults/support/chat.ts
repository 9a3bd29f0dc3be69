/**
 * Members chatting through a fault, as the web app would:
 *
 * - a socket that reconnects by itself, at once after 1001 "going away" and after a short
 *   back-off otherwise (web/src/net/socket.ts);
 * - a catch-up from history on every `authenticated` frame, from a cursor that only HTTP pages
 *   move (web/src/chat/chat-store.ts); a catch-up that fails is not retried, the next
 *   `authenticated` brings the next one, as in the web app;
 * - sends through the client core (SenderKeys), which posts a message whose answer was lost (no
 *   answer, a 5xx) again with the same client message id, here for up to 30 s.
 *
 * Then the accounting every fault test ends with: the messages acknowledged (201) are exactly the
 * rows stored, and every member holds exactly those, each once, and can read them.
 */
import { closeCodes, GENERAL_CONVERSATION, limits, routes, type Message, type ServerFrame } from '@enclave/protocol';
import { expect } from 'vitest';
import { NetworkFailure, ReplyError, TestMember, type TestSocket } from '../../src/testing/member';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resends of a message without an answer: every 250 ms for 30 s, longer than any fault here. */
const SEND_RETRY_DELAYS_MS: readonly number[] = Array.from({ length: 120 }, () => 250);
const RECONNECT_BACKOFF_MS = 250;

/** A failure before the message itself was posted (member list, epoch upload): nothing of it is stored. */
function failedBeforePosting(err: unknown): boolean {
  if (err instanceof NetworkFailure) return !err.path.startsWith(routes.sendMessage.path);
  if (err instanceof ReplyError) return err.route !== routes.sendMessage && err.status >= 500;
  return false;
}

export class LiveMember {
  /** Every message of the general channel held, by id, from frames and catch-up pages alike. */
  readonly held = new Map<number, Message>();
  /** How each message first arrived. */
  readonly viaFrame = new Set<number>();
  readonly viaCatchUp = new Set<number>();
  /** This member's own messages in the general channel the server acknowledged (201): id → text. */
  readonly acked = new Map<number, string>();
  /** When each of them was acknowledged. */
  readonly ackedAt = new Map<number, number>();
  /** Each close of this member's socket: when, and its code. */
  readonly closes: { at: number; code: number }[] = [];
  /** Milliseconds from a socket's close to the next authenticated socket. */
  readonly reconnects: number[] = [];
  /** When `authenticated` came on a socket already authenticated: the server asking for a catch-up. */
  readonly resyncs: number[] = [];
  /** Presence frames, as they came. */
  readonly presence: { userId: string; online: boolean }[] = [];
  /** Why catch-ups failed (each is left to the next `authenticated`, as in the web app). */
  readonly failedCatchUps: string[] = [];
  private cursor = 0;
  private socket: TestSocket | null = null;
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private catchUps: Promise<void> = Promise.resolve();

  private constructor(
    readonly name: string,
    readonly member: TestMember,
  ) {}

  /** `withoutShareKey`: a member whose page came from a release before share keys (its server refuses them at sign-up). */
  static async join(url: string, inviteKey: string, name: string, options: { withoutShareKey?: boolean } = {}): Promise<LiveMember> {
    const member = await TestMember.join(url, inviteKey, name, [], options);
    member.sendRetryDelaysMs = SEND_RETRY_DELAYS_MS;
    return new LiveMember(name, member);
  }

  /** Opens the socket and keeps it open (reconnecting) until `stop`. Resolves once first authenticated. */
  async start(): Promise<void> {
    let first: () => void = () => undefined;
    const authenticated = new Promise<void>((resolve) => (first = resolve));
    this.loop = this.run(first);
    await authenticated;
    await this.catchUps;
  }

  private async run(onFirst: () => void): Promise<void> {
    let closedAt: number | null = null;
    while (!this.stopped) {
      let socket: TestSocket;
      try {
        socket = await this.member.connect();
      } catch {
        await sleep(RECONNECT_BACKOFF_MS);
        continue;
      }
      if (!socket.frames.some((f) => f.type === 'authenticated')) {
        socket.close();
        await sleep(RECONNECT_BACKOFF_MS);
        continue;
      }
      if (closedAt !== null) this.reconnects.push(Date.now() - closedAt);
      closedAt = null;
      this.socket = socket;
      let seen = 0;
      const read = () => {
        while (seen < socket.frames.length) this.onFrame(socket.frames[seen]!, seen++ > 0);
      };
      read();
      socket.ws.on('message', read);
      onFirst();
      if (this.stopped) socket.close();
      const { code } = await socket.closed;
      closedAt = Date.now();
      this.closes.push({ at: closedAt, code });
      this.socket = null;
      if (code !== closeCodes.goingAway && !this.stopped) await sleep(RECONNECT_BACKOFF_MS);
    }
  }

  private onFrame(frame: ServerFrame, again: boolean): void {
    if (frame.type === 'chat_message' && frame.message.conversationId === GENERAL_CONVERSATION) {
      if (!this.held.has(frame.message.id)) this.viaFrame.add(frame.message.id);
      this.held.set(frame.message.id, frame.message);
    } else if (frame.type === 'authenticated') {
      if (again) this.resyncs.push(Date.now());
      void this.catchUp();
    } else if (frame.type === 'presence') {
      for (const userId of frame.online) this.presence.push({ userId, online: true });
      for (const userId of frame.offline) this.presence.push({ userId, online: false });
    }
  }

  /** Catches up the general channel from the cursor, after the catch-ups already under way. */
  catchUp(): Promise<void> {
    this.catchUps = this.catchUps.then(() =>
      this.pages().catch((err: unknown) => {
        this.failedCatchUps.push(err instanceof Error ? err.message : String(err));
      }),
    );
    return this.catchUps;
  }

  private async pages(): Promise<void> {
    const limit = limits.historyMaxPageSize;
    if (this.cursor === 0) return this.hold(await this.member.history('all', { limit }));
    for (let after = this.cursor; ;) {
      const page = await this.member.history('all', { after, limit });
      this.hold(page);
      if (page.length < limit) return;
      after = page.at(-1)!.id;
    }
  }

  /** Keeps a page and moves the cursor over it (pages are contiguous; frames never move it). */
  private hold(page: Message[]): void {
    for (const m of page) {
      if (!this.held.has(m.id)) this.viaCatchUp.add(m.id);
      this.held.set(m.id, m);
      if (m.id > this.cursor) this.cursor = m.id;
    }
  }

  /**
   * Sends one text (to the general channel unless `receiverId` says otherwise) until the server
   * acknowledges it, and returns the message stored; throws if it could not, naming the text.
   */
  async send(text: string, receiverId = 'all'): Promise<Message> {
    for (let tries = 0; ; tries++) {
      let outcome;
      try {
        outcome = await this.member.send(receiverId, text);
      } catch (err) {
        if (failedBeforePosting(err) && tries < 100) {
          await sleep(200);
          continue;
        }
        throw new Error(`${this.name}: "${text}" was never acknowledged`, { cause: err });
      }
      if (outcome.status !== 201) throw new Error(`${this.name}: "${text}" answered ${outcome.status} ${outcome.error?.error ?? ''}`);
      const message = outcome.body!.message;
      if (receiverId === 'all') {
        this.acked.set(message.id, text);
        this.ackedAt.set(message.id, Date.now());
      }
      return message;
    }
  }

  /** Sends numbered texts one after another until `until` resolves (the send under way finishes). */
  async sendUntil(until: Promise<void>, paceMs: number): Promise<void> {
    let done = false;
    void until.then(() => (done = true));
    for (let i = 0; !done; i++) {
      await this.send(`${this.name} #${i}`);
      await sleep(paceMs);
    }
  }

  /** What its connection went through, for a failure's message. */
  describe(): string {
    return JSON.stringify({
      closes: this.closes,
      reconnects: this.reconnects,
      resyncs: this.resyncs.length,
      failedCatchUps: this.failedCatchUps,
      cursor: this.cursor,
    });
  }

  get connected(): boolean {
    return this.socket !== null;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.socket?.close();
    await this.loop;
    await this.catchUps;
  }
}

/** Every member sends until `stop`, which waits for the sends under way to be acknowledged. */
export function startLoad(members: LiveMember[], paceMs: number): { stop: () => Promise<void> } {
  let stop!: () => void;
  const until = new Promise<void>((resolve) => (stop = resolve));
  const sending = Promise.all(members.map((m) => m.sendUntil(until, paceMs)));
  // A send that fails fails the test when `stop` is awaited, not as an unhandled rejection before.
  sending.catch(() => undefined);
  return {
    stop: async () => {
      stop();
      await sending;
    },
  };
}

/** Joins members one after another (sign-ups from one address) and opens their sockets. */
export async function joinAll(
  url: string,
  keys: string[],
  prefix: string,
  options: { withoutShareKey?: boolean } = {},
): Promise<LiveMember[]> {
  const members: LiveMember[] = [];
  for (const [i, key] of keys.entries()) members.push(await LiveMember.join(url, key, `${prefix}-${i}`, options));
  for (const m of members) await m.start();
  return members;
}

/**
 * The first message of a run, seen by everyone, so that every cursor starts on it (a cursor at 0
 * would mean "the latest page" to the catch-up).
 */
export async function seed(members: LiveMember[]): Promise<void> {
  await members[0]!.send(`${members[0]!.name} seed`);
  for (const m of members) await m.catchUp();
}

export type Tally = {
  acknowledged: number;
  stored: number;
  /** Per member: held, of which first by frame and first by catch-up. */
  delivered: { name: string; held: number; viaFrame: number; viaCatchUp: number }[];
};

/**
 * After recovery: acknowledged = stored = what every member holds, no duplicate, all readable.
 * `stored` lists the ids of the rows in the general channel, read from the database itself; it is
 * called last, once the members are done with the server. `joinedAfter`: members who joined late,
 * with the last id stored before they did; they are held to what came after it (earlier messages
 * were sent before they could read them).
 */
export async function expectEveryMessageOnce(
  members: LiveMember[],
  stored: () => Promise<number[]>,
  joinedAfter = new Map<LiveMember, number>(),
): Promise<Tally> {
  const acked = new Map<number, string>();
  for (const m of members) for (const [id, text] of m.acked) acked.set(id, text);
  const ackedIds = [...acked.keys()].sort((a, b) => a - b);
  const texts = [...acked.values()];
  expect(new Set(texts).size, 'each acknowledged text under one id').toBe(texts.length);
  const after = (m: LiveMember) => joinedAfter.get(m) ?? 0;
  const expected = (m: LiveMember) => ackedIds.filter((id) => id > after(m));

  // Frames and catch-ups already under way may still land: every member ends up with all of them.
  const missing = () =>
    members.flatMap((m) => {
      const ids = expected(m).filter((id) => !m.held.has(id));
      return ids.length ? [`${m.name} misses ${ids.length} (${ids.slice(0, 5).join(', ')}…): ${m.describe()}`] : [];
    });
  await expect.poll(missing, { timeout: 15_000, interval: 200 }).toEqual([]);
  for (const m of members) {
    const held = [...m.held.values()].filter((message) => message.id > after(m));
    expect(
      held.map((message) => message.id).sort((a, b) => a - b),
      `${m.name} holds exactly the acknowledged messages`,
    ).toEqual(expected(m));
    const read = await m.member.decrypt(held);
    expect(
      read.filter((r) => r.text !== acked.get(r.id)).map((r) => r.id),
      `${m.name} reads each message as it was sent`,
    ).toEqual([]);
  }

  const rows = await stored();
  expect(rows.length, 'no row stored twice').toBe(new Set(rows).size);
  expect(
    [...rows].sort((a, b) => a - b),
    'stored rows = acknowledged messages',
  ).toEqual(ackedIds);
  return {
    acknowledged: ackedIds.length,
    stored: rows.length,
    delivered: members.map((m) => ({ name: m.name, held: m.held.size, viaFrame: m.viaFrame.size, viaCatchUp: m.viaCatchUp.size })),
  };
}

/** One line of figures for the test's output. */
export function report(title: string, figures: Record<string, unknown>): void {
  console.log(`[faults] ${title}: ${JSON.stringify(figures)}`);
}
