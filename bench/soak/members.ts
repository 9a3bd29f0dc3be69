/**
 * Members of the soak: the server's test client (`TestMember`: real keys, the web app's sender keys
 * and decryptor, a real WebSocket) with what the soak tracks around it — its state, its sends in
 * flight, and what its socket received, counted rather than kept.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { routes, type Message, type ServerFrame } from '@enclave/protocol';
import { defaultRateLimits } from '../../server/src/config';
import { ReplyError, TestMember, type Outcome, type TestSocket } from '../../server/src/testing/member';

/** TestMember keeps every payload for the tests' secret scans; over 100,000 messages that would be gigabytes. */
class Discarded extends Array<string> {
  override push(): number {
    return 0;
  }
}

/**
 * online: signed in, socket open, sending. offline: socket closed, session kept. signed-out: logged
 * out. banned: banned by the creator. left: logged out for good.
 */
export type MemberState = 'online' | 'offline' | 'signed-out' | 'banned' | 'left';

/** Messages each socket keeps, chosen uniformly among all it received, for the decryption check. */
const SAMPLE_SIZE = 20;

/** At most `max` calls per window; ours slides, the server's are fixed, so a margin covers the difference. */
class Gate {
  private readonly recent: number[] = [];

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  async take(): Promise<void> {
    for (;;) {
      const now = Date.now();
      while (this.recent.length && now - (this.recent[0] ?? 0) > this.windowMs * 1.2) this.recent.shift();
      if (this.recent.length < this.max) {
        this.recent.push(now);
        return;
      }
      await sleep(this.windowMs / 4);
    }
  }
}

/**
 * The server's per-address limits on logins and registrations count every member of the soak, who
 * all come from 127.0.0.1: the soak keeps one under each.
 */
export type AddressGates = { login: Gate; register: Gate };

export const addressGates = (windowMs: number): AddressGates => ({
  login: new Gate(defaultRateLimits.login.max - 1, windowMs),
  register: new Gate(defaultRateLimits.register.max - 1, windowMs),
});

/** Milliseconds a 429 asks to wait (`retry-after`, in seconds). */
export const retryAfterMs = (headers: Headers): number => Number(headers.get('retry-after') ?? '1') * 1000;

/**
 * Sends until the message is stored, waiting as the server asks between tries: a machine fast
 * enough to pass the per-member send limit is answered 429, and many first sends at once from one
 * address pass its share of the work in flight (docs/security.md §9), which refuses the member
 * list of a rotation with 503.
 */
export async function sendUntilStored(member: TestMember, to: string, text: string): Promise<void> {
  for (;;) {
    let outcome;
    try {
      outcome = await member.send(to, text);
    } catch (err) {
      if (!(err instanceof ReplyError) || err.status !== 503) throw err;
      await sleep(err.retryAfterMs ?? 1000);
      continue;
    }
    if (outcome.status === 201) return;
    if (outcome.status !== 429) throw new Error(`a send answered ${outcome.status}`);
    await sleep(retryAfterMs(outcome.headers));
  }
}

export class SoakMember {
  state: MemberState = 'signed-out';
  /** In a churn step: neither sends nor is written to. */
  busy = false;
  /** Sends of this member in flight, and sends to them (direct messages). */
  sending = 0;
  receiving = 0;
  /** Start times of this member's recent sends, to stay under the per-member send limit. */
  readonly recentSends: number[] = [];
  pausedUntil = 0;
  socket: TestSocket | null = null;
  /** chat_message frames this member's sockets received, over every socket it had. */
  received = 0;
  /** Ids received (steady members only: they must receive each message meant for them). */
  readonly receivedIds: Set<number> | null;
  /** Frames carrying an id this member's current socket had already received. */
  duplicates = 0;
  /** Why the server ended this member's sockets (`session_ended` reasons). */
  readonly endings: string[] = [];
  readonly sample: Message[] = [];
  private socketIds = new Set<number>();

  private constructor(
    readonly tm: TestMember,
    readonly name: string,
    /** Never churned: connected from before the first message to after the last. */
    readonly steady: boolean,
  ) {
    this.receivedIds = steady ? new Set() : null;
  }

  get id(): string {
    return this.tm.id;
  }

  /** Redeems an invite key (registration and login, as the web app does them). */
  static async join(baseUrl: string, inviteKey: string, name: string, steady: boolean, gates: AddressGates): Promise<SoakMember> {
    await gates.register.take();
    await gates.login.take();
    const tm = await TestMember.join(baseUrl, inviteKey, name, new Discarded());
    const member = new SoakMember(tm, name, steady);
    // join() signs in too; under the address's login limit that may have been refused.
    if (!(tm.user as TestMember['user'] | undefined)) await member.signIn(gates);
    member.state = 'offline';
    return member;
  }

  async signIn(gates: AddressGates): Promise<void> {
    for (;;) {
      await gates.login.take();
      const res = await this.tm.login();
      if (res.status === 200) break;
      if (res.status !== 429) throw new Error(`${this.name}: login answered ${res.status} ${res.error?.error ?? ''}`);
      await sleep(retryAfterMs(res.headers));
    }
    this.state = 'offline';
  }

  /** Opens a socket with the current session and counts what it receives. */
  async connect(): Promise<void> {
    const socket = await this.tm.connect();
    if (!socket.frames.some((f) => f.type === 'authenticated'))
      throw new Error(`${this.name}: socket not authenticated: ${JSON.stringify(socket.frames)}`);
    this.socket = socket;
    this.socketIds = new Set();
    // TestSocket parses each frame into `frames` before this listener runs; taken from there, not kept.
    const drain = () => {
      for (const frame of socket.frames) this.onFrame(frame);
      socket.frames.length = 0;
    };
    drain();
    socket.ws.on('message', drain);
    this.state = 'online';
  }

  private onFrame(frame: ServerFrame): void {
    if (frame.type === 'session_ended') this.endings.push(frame.reason);
    if (frame.type !== 'chat_message') return;
    const { id } = frame.message;
    if (this.socketIds.has(id)) this.duplicates += 1;
    this.socketIds.add(id);
    this.receivedIds?.add(id);
    this.received += 1;
    if (this.sample.length < SAMPLE_SIZE) this.sample.push(frame.message);
    else {
      const slot = randomInt(this.received);
      if (slot < SAMPLE_SIZE) this.sample[slot] = frame.message;
    }
  }

  /** Closes the socket from the client side (the member goes offline, signed in). */
  async disconnect(): Promise<void> {
    const socket = this.requireSocket();
    socket.close();
    await socket.closed;
    this.socket = null;
    this.state = 'offline';
  }

  /** Waits for the server to close the socket; returns whether it did within `ms`. */
  async serverClosesSocket(ms = 10_000): Promise<boolean> {
    const socket = this.requireSocket();
    const closed = await Promise.race([socket.closed.then(() => true), sleep(ms).then(() => false)]);
    if (closed) this.socket = null;
    return closed;
  }

  async logout(): Promise<void> {
    await this.tm.call(routes.logout, {});
    this.state = 'signed-out';
  }

  send(receiverId: string, text: string): Promise<Outcome<typeof routes.sendMessage>> {
    return this.tm.send(receiverId, text);
  }

  /** Resolves once nothing is in flight from or to this member. */
  async idle(): Promise<void> {
    while (this.sending > 0 || this.receiving > 0) await sleep(5);
  }

  private requireSocket(): TestSocket {
    if (!this.socket) throw new Error(`${this.name} has no socket`);
    return this.socket;
  }
}
