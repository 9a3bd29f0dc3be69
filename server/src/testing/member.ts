/**
 * A member as the browser would be, in Node: real keys from @enclave/crypto, real HTTP with a
 * cookie jar, a real WebSocket, and the browser's own client logic from @enclave/client (key
 * trust over an in-memory pin store, sender keys, the decryptor), so integration tests run what
 * the web app runs. Every payload it sends or receives is kept in `wire` so that tests can look for
 * secrets in it.
 */
import { KeyTrust, MemoryPinStore, MessageDecryptor, retryAfterMs, SenderKeys, type MemberList, type SkippedRecipient } from '@enclave/client';
import {
  createAccount,
  createEpoch,
  decryptMessage,
  deriveLoginKey,
  encryptMessage,
  fingerprint,
  generateAccessToken,
  importPublicIdentity,
  openEpochShare,
  openPrivateKeys,
  type NewAccount,
  type OpenedIdentity,
} from '@enclave/crypto';
import {
  type AttachmentRef,
  type MessageContent,
  errorResponseSchema,
  routes,
  routeUrl,
  serverFrameSchema,
  SOCKET_PATH,
  type ConversationMembersResponse,
  type CreateEpochRequest,
  type EpochShare,
  type ErrorResponse,
  type Message,
  type PublicUser,
  type RouteDefinition,
  type RouteInput,
  type RouteResponse,
  type SelfUser,
  type SendMessageRequest,
  type ServerFrame,
} from '@enclave/protocol';
import WebSocket from 'ws';

export type Reply = { status: number; body: unknown; headers: Headers };
export type DecryptedMessage = { id: number; senderId: string; text: string | null; attachment?: AttachmentRef };

/**
 * A call's answer, parsed: `body` by the route's response schema when it succeeded, `error` by
 * the error schema when it failed. An answer that fits neither fails the test.
 */
export type Outcome<R extends RouteDefinition> = {
  status: number;
  headers: Headers;
  body: RouteResponse<R> | null;
  error: ErrorResponse | null;
};

/** Parses a raw reply as the route's answer. */
export function outcomeOf<R extends RouteDefinition>(route: R, res: Reply): Outcome<R> {
  const outcome: Outcome<R> = { status: res.status, headers: res.headers, body: null, error: null };
  if (res.status === route.status) {
    // Parsed by this very route's schema: its type is the route's response type. An empty answer
    // (HEAD) reads as null here and as undefined in the schema.
    outcome.body = route.response.parse(res.body ?? undefined) as RouteResponse<R>;
  } else if (res.status >= 400) {
    outcome.error = errorResponseSchema.parse(res.body);
  } else {
    throw new Error(`${route.method} ${route.path} answered ${res.status}, expected ${route.status}`);
  }
  return outcome;
}

/**
 * A call the server refused, as the client core reads refusals (`status`, `code`), with the
 * parsed answer for the test.
 */
export class ReplyError<R extends RouteDefinition = RouteDefinition> extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly retryAfterMs: number | null;

  constructor(
    readonly route: R,
    readonly outcome: Outcome<R>,
  ) {
    super(`${route.method} ${route.path} failed: ${outcome.status} ${outcome.error?.error ?? ''}`);
    this.status = outcome.status;
    this.code = outcome.error?.code ?? null;
    this.retryAfterMs = retryAfterMs(outcome.headers.get('retry-after'));
  }
}

/**
 * No answer at all (refused, reset, cut mid-request): status 0, as the web app reports it, so that
 * the client core reads it as a failure after which the server may or may not have acted.
 */
export class NetworkFailure extends Error {
  readonly status = 0;
  readonly code = null;

  constructor(
    readonly method: string,
    readonly path: string,
    cause: unknown,
  ) {
    super(`${method} ${path}: no answer (${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)})`, { cause });
  }
}

type Caller = { request: TestMember['request'] };

/** Calls through the route table, with this caller's cookie; the answer parsed (see Outcome). */
async function attempt<R extends RouteDefinition>(caller: Caller, route: R, input: RouteInput<R>, headers: Record<string, string> = {}): Promise<Outcome<R>> {
  const body = route.body ? input.body : undefined;
  return outcomeOf(route, await caller.request(route.method, routeUrl(route, input), body, headers));
}

/** Like `attempt`, for calls that must succeed: the parsed body, or a {@link ReplyError}. */
async function call<R extends RouteDefinition>(caller: Caller, route: R, input: RouteInput<R>, headers: Record<string, string> = {}): Promise<RouteResponse<R>> {
  const outcome = await attempt(caller, route, input, headers);
  if (outcome.status !== route.status) throw new ReplyError(route, outcome);
  return outcome.body as RouteResponse<R>;
}

/** The client core of one signed-in member. */
type Client = { trust: KeyTrust; senderKeys: SenderKeys; decryptor: MessageDecryptor };

export class TestMember {
  /** A caller with no account at all. */
  static Anonymous = class {
    readonly wire: string[] = [];
    constructor(readonly baseUrl: string) {}
    request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
      return TestMember.prototype.request.call(this as unknown as TestMember, method, path, body, headers);
    }
    attempt<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<Outcome<R>> {
      return attempt(this, route, input, headers);
    }
    call<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<RouteResponse<R>> {
      return call(this, route, input, headers);
    }
  };

  readonly wire: string[];
  /** The contacts' pinned fingerprints: they last as long as this member, across logins. */
  readonly pins = new MemoryPinStore();
  /** Members left out of this member's new epochs because their keys are not usable, as SenderKeys reported them. */
  readonly skipped: { conversationId: string; members: SkippedRecipient[] }[] = [];
  private cookie = '';
  private client: Client | null = null;
  /** The member list as last fetched (the web app's TanStack Query cache). */
  private users: Promise<PublicUser[]> | null = null;
  /** A member list shared with other members, read instead of fetching one's own (shareMemberList). */
  private sharedList: MemberList | null = null;
  /**
   * Waits before each resend of a message that got no answer or a 5xx (SenderKeys'
   * `sendRetryDelaysMs`); the web app's when unset. Read when the client core is made (first send).
   */
  sendRetryDelaysMs?: readonly number[];
  /** The answer that carried each sent message, for `send` to return. */
  private readonly sendOutcomes = new WeakMap<Message, Outcome<typeof routes.sendMessage>>();
  user!: SelfUser;
  identity!: OpenedIdentity;

  private constructor(
    readonly baseUrl: string,
    readonly token: string,
    wire: string[],
    /** Sent with every request and socket upgrade (an X-Forwarded-For behind a trusted proxy). */
    private readonly headers: Record<string, string>,
  ) {
    this.wire = wire;
  }

  /**
   * Registers with an invite key, then signs in with the new token. `options.account` makes the
   * keys instead of `createAccount` (the load bench draws them from a pool: RSA generation is slow).
   */
  static async join(
    baseUrl: string,
    inviteKey: string,
    username: string,
    wire: string[] = [],
    options: { headers?: Record<string, string>; account?: (token: string) => Promise<Pick<NewAccount, 'publicIdentity' | 'encryptedPrivateKey'>> } = {},
  ): Promise<TestMember> {
    const token = generateAccessToken();
    const member = new TestMember(baseUrl, token, wire, options.headers ?? {});
    const account = await (options.account ?? createAccount)(token);
    const res = await member.attempt(routes.register, {
      body: {
        inviteKey,
        username,
        loginKey: await deriveLoginKey(token),
        ...account.publicIdentity,
        encryptedPrivateKey: account.encryptedPrivateKey,
      },
    });
    if (!res.body) throw new Error(`register failed: ${res.status} ${res.error?.error}`);
    await member.login();
    return member;
  }

  async login(): Promise<Outcome<typeof routes.login>> {
    const res = await this.attempt(routes.login, { body: { loginKey: await deriveLoginKey(this.token) } });
    if (res.body) {
      this.user = res.body.user;
      this.identity = await openPrivateKeys(this.token, res.body.encryptedPrivateKey);
    }
    return res;
  }

  /** A call through the route table, answer parsed (see Outcome). */
  attempt<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<Outcome<R>> {
    return attempt(this, route, input, headers);
  }

  /** A call that must succeed: its parsed answer. */
  call<R extends RouteDefinition>(route: R, input: RouteInput<R>, headers?: Record<string, string>): Promise<RouteResponse<R>> {
    return call(this, route, input, headers);
  }

  /**
   * Reads the member list through `list` from now on instead of fetching a copy of its own: the
   * load bench's thousands of members hold one list between them, not one each (3,000 lists of
   * 3,000 members outgrow the client's heap). Before the first send or decryption.
   */
  shareMemberList(list: MemberList): void {
    if (this.client) throw new Error('the member list is shared before the client core is made');
    this.sharedList = list;
  }

  /** The client core, made at the first use after login and kept across later logins (same keys). */
  private core(): Client {
    if (this.client) return this.client;
    const self = { id: this.id, ...this.identity.publicIdentity };
    const trust = this.keyTrust(this.sharedList ?? { current: () => this.users ?? this.refreshUsers(), fresh: () => this.refreshUsers() });
    const decryptor = new MessageDecryptor({
      selfId: this.id,
      decryptKey: this.identity.decryptKey,
      fetchShares: (epochIds) => this.fetchShares(epochIds),
      verifyKeyFor: (userId) => trust.verifyKeyFor(userId),
      crypto: { openEpochShare: openEpochShare, decryptMessage },
    });
    const senderKeys = new SenderKeys({
      self: { id: self.id, encryptionPublicKey: self.encryptionPublicKey },
      signKey: this.identity.signKey,
      api: {
        conversationMembers: (receiverId) => this.conversationMembers(receiverId),
        createEpoch: (request) => this.uploadEpoch(request),
        sendMessage: (request) => this.sendMessage(request),
      },
      crypto: { createEpoch, encryptMessage },
      onEpochCreated: (epoch) => decryptor.addOwnEpoch(epoch),
      onRecipientsSkipped: (conversationId, members) => {
        if (members.length) this.skipped.push({ conversationId, members });
      },
      trust,
      ...(this.sendRetryDelaysMs ? { sendRetryDelaysMs: this.sendRetryDelaysMs } : {}),
    });
    this.client = { trust, senderKeys, decryptor };
    return this.client;
  }

  private keyTrust(members: MemberList): KeyTrust {
    return new KeyTrust({
      self: { id: this.id, ...this.identity.publicIdentity },
      pins: this.pins,
      members,
      crypto: { fingerprint, importPublicIdentity },
    });
  }

  private refreshUsers(): Promise<PublicUser[]> {
    const users = this.call(routes.users, {}).then((data) => data.users);
    this.users = users;
    // A failed fetch is not kept: the next caller asks again.
    users.catch(() => {
      if (this.users === users) this.users = null;
    });
    return users;
  }

  private async conversationMembers(receiverId: string): Promise<ConversationMembersResponse> {
    return this.call(routes.conversationMembers, { query: { receiverId } });
  }

  private async uploadEpoch(request: CreateEpochRequest): Promise<void> {
    await this.call(routes.createEpoch, { body: request });
  }

  private async sendMessage(request: SendMessageRequest): Promise<Message> {
    const outcome = await this.attempt(routes.sendMessage, { body: request });
    if (!outcome.body) throw new ReplyError(routes.sendMessage, outcome);
    this.sendOutcomes.set(outcome.body.message, outcome);
    return outcome.body.message;
  }

  private async fetchShares(epochIds: readonly string[]): Promise<EpochShare[]> {
    return (await this.call(routes.epochShares, { query: { ids: epochIds.join(',') } })).shares;
  }

  get id(): string {
    return this.user.id;
  }

  async request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...this.headers, ...extraHeaders };
    if (this.cookie) headers.cookie = this.cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      this.wire.push(`${method} ${path} ${payload}`);
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.baseUrl + path, { method, headers, body: payload });
      text = await res.text();
    } catch (cause) {
      throw new NetworkFailure(method, path, cause);
    }
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
    this.wire.push(`${res.status} ${path} ${text}`);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  /**
   * Sends a text as the web client does (@enclave/client's SenderKeys: rotation when the member set
   * moved, after `limits.epochMaxMessages` messages or after 7 days, recipients checked by
   * KeyTrust). Returns the server's reply to the message, refusals included; a refused members
   * list or epoch upload throws.
   */
  async send(receiverId: string, text: string | MessageContent): Promise<Outcome<typeof routes.sendMessage>> {
    const { senderKeys, decryptor } = this.core();
    let message: Message;
    try {
      message = await senderKeys.send(receiverId, text);
    } catch (error) {
      if (error instanceof ReplyError && error.route === routes.sendMessage) return error.outcome as Outcome<typeof routes.sendMessage>;
      throw error;
    }
    decryptor.addOwnMessage(message);
    const outcome = this.sendOutcomes.get(message);
    if (!outcome) throw new Error('the sent message came without its answer');
    return outcome;
  }

  async history(receiverId: string, page: { before?: number; after?: number; limit?: number } = {}): Promise<Message[]> {
    return (await this.call(routes.history, { query: { receiverId, ...page } })).messages;
  }

  /**
   * Decrypts messages as the web client does (@enclave/client's MessageDecryptor, senders' keys
   * checked by KeyTrust against this member's pins); `text` is null where this member holds no
   * key or the message is not to be trusted. The member list is fetched fresh first. With `stored`
   * it uses those shares (e.g. read from the raw database) and public keys instead of asking the
   * server, and keeps nothing it opened.
   */
  async decrypt(messages: Message[], stored?: { shares: EpochShare[]; users: PublicUser[] }): Promise<DecryptedMessage[]> {
    let decryptor: MessageDecryptor;
    if (stored) {
      const trust = this.keyTrust({ current: async () => stored.users, fresh: async () => stored.users });
      decryptor = new MessageDecryptor({
        selfId: this.id,
        decryptKey: this.identity.decryptKey,
        fetchShares: async (epochIds) => stored.shares.filter((s) => epochIds.includes(s.epochId)),
        verifyKeyFor: (userId) => trust.verifyKeyFor(userId),
        crypto: { openEpochShare: openEpochShare, decryptMessage },
      });
    } else {
      decryptor = this.core().decryptor;
      await this.refreshUsers();
    }
    const results = await decryptor.decrypt(messages);
    return messages.map((m) => {
      const result = results.get(m.id);
      if (result?.status !== 'ok') return { id: m.id, senderId: m.senderId, text: null };
      return { id: m.id, senderId: m.senderId, text: result.text, ...(result.attachment ? { attachment: result.attachment } : {}) };
    });
  }

  /** Where this member's socket goes, and the headers of its upgrade (the session cookie among them). */
  socketTarget(): { url: string; headers: Record<string, string> } {
    return { url: this.baseUrl.replace(/^http/, 'ws') + SOCKET_PATH, headers: { ...this.headers, ...(this.cookie ? { cookie: this.cookie } : {}) } };
  }

  /** Opens /ws with this member's session cookie and authenticates. */
  async connect(): Promise<TestSocket> {
    const socket = new TestSocket(this.baseUrl.replace(/^http/, 'ws') + SOCKET_PATH, this.cookie, this.wire, this.headers);
    await socket.opened;
    socket.send({ type: 'authenticate' });
    await socket.waitFor((f) => f.type === 'authenticated' || f.type === 'auth_failed');
    return socket;
  }
}

export class TestSocket {
  readonly frames: ServerFrame[] = [];
  readonly ws: WebSocket;
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number }>;
  private waiters: (() => void)[] = [];

  /** `headers`: more upgrade headers (an X-Forwarded-For behind a trusted proxy). */
  constructor(url: string, cookie: string, wire: string[], headers: Record<string, string> = {}) {
    this.ws = new WebSocket(url, { headers: { ...headers, ...(cookie ? { cookie } : {}) } });
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.closed = new Promise((resolve) => this.ws.once('close', (code) => resolve({ code })));
    this.ws.on('message', (data: Buffer) => {
      const text = data.toString('utf8');
      wire.push(`ws< ${text}`);
      this.frames.push(serverFrameSchema.parse(JSON.parse(text)));
      for (const w of this.waiters) w();
    });
    this.ws.on('close', () => {
      for (const w of this.waiters) w();
    });
    const send = this.ws.send.bind(this.ws);
    this.send = (frame: unknown) => {
      const text = typeof frame === 'string' ? frame : JSON.stringify(frame);
      wire.push(`ws> ${text}`);
      send(text);
    };
  }

  send: (frame: unknown) => void;

  /**
   * Resolves with the first frame (already received or coming) that matches; fails after `ms`, or
   * as soon as the socket is closed without one.
   */
  waitFor(match: (f: ServerFrame) => boolean, ms = 5000): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (found) {
          cleanup();
          resolve(found);
        } else if (this.ws.readyState === this.ws.CLOSED) {
          cleanup();
          reject(new Error(`socket closed before a matching frame; got ${JSON.stringify(this.frames)}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no matching frame within ${ms} ms; got ${JSON.stringify(this.frames)}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
      };
      this.waiters.push(check);
      check();
    });
  }

  close(): void {
    this.ws.close();
  }
}
