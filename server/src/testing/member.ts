/**
 * A member as the browser would be, in Node: real keys from @enclave/crypto, real HTTP with a
 * cookie jar, a real WebSocket. Every payload it sends or receives is kept in `wire` so that tests
 * can look for secrets in it.
 */
import {
  createAccount,
  createEpoch,
  CryptoError,
  decryptMessage,
  deriveLoginKey,
  encryptMessage,
  generateAccessToken,
  importPublicIdentity,
  openEpochShare,
  openPrivateKeys,
  type Epoch,
  type PrivateIdentity,
} from '@enclave/crypto';
import {
  errorResponseSchema,
  routes,
  routeUrl,
  serverFrameSchema,
  SOCKET_PATH,
  type EpochShare,
  type ErrorResponse,
  type Message,
  type PublicUser,
  type RouteDefinition,
  type RouteInput,
  type RouteResponse,
  type SelfUser,
  type ServerFrame,
} from '@enclave/protocol';
import WebSocket from 'ws';

export type Reply = { status: number; body: unknown; headers: Headers };

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
    // Parsed by this very route's schema: its type is the route's response type.
    // An empty answer (HEAD) reads as null here and as undefined in the schema.
    outcome.body = route.response.parse(res.body ?? undefined) as RouteResponse<R>;
  } else if (res.status >= 400) {
    outcome.error = errorResponseSchema.parse(res.body);
  } else {
    throw new Error(`${route.method} ${route.path} answered ${res.status}, expected ${route.status}`);
  }
  return outcome;
}

/** Calls through the route table, with this caller's cookie; the answer parsed (see Outcome). */
async function attempt<R extends RouteDefinition>(
  caller: { request: TestMember['request'] },
  route: R,
  input: RouteInput<R>,
  headers: Record<string, string> = {},
): Promise<Outcome<R>> {
  const body = route.body ? input.body : undefined;
  return outcomeOf(route, await caller.request(route.method, routeUrl(route, input), body, headers));
}

/** Like `attempt`, for calls that must succeed: the parsed body, or an error naming the refusal. */
async function call<R extends RouteDefinition>(
  caller: { request: TestMember['request'] },
  route: R,
  input: RouteInput<R>,
  headers: Record<string, string> = {},
): Promise<RouteResponse<R>> {
  const outcome = await attempt(caller, route, input, headers);
  if (outcome.status !== route.status) {
    throw new Error(`${route.method} ${route.path} failed: ${outcome.status} ${outcome.error?.error ?? ''}`);
  }
  return outcome.body as RouteResponse<R>;
}
export type DecryptedMessage = { id: number; senderId: string; text: string | null };

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
  private cookie = '';
  private readonly sending = new Map<string, { epoch: Epoch; next: number }>();
  private readonly epochs = new Map<string, Epoch | null>();
  user!: SelfUser;
  identity!: PrivateIdentity;

  private constructor(
    readonly baseUrl: string,
    readonly token: string,
    wire: string[],
  ) {
    this.wire = wire;
  }

  /** Registers with an invite key, then signs in with the new token. */
  static async join(baseUrl: string, inviteKey: string, username: string, wire: string[] = []): Promise<TestMember> {
    const token = generateAccessToken();
    const member = new TestMember(baseUrl, token, wire);
    const account = await createAccount(token);
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

  get id(): string {
    return this.user.id;
  }

  async request(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...extraHeaders };
    if (this.cookie) headers.cookie = this.cookie;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      this.wire.push(`${method} ${path} ${payload}`);
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body: payload });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0] ?? '';
    const text = await res.text();
    this.wire.push(`${res.status} ${path} ${text}`);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  /** Sends a text, rotating the sender key when the member set moved, as the web client does. */
  async send(receiverId: string, text: string): Promise<Outcome<typeof routes.sendMessage>> {
    for (let attempt = 0; ; attempt++) {
      const state = await this.sendingEpoch(receiverId);
      const index = state.next++;
      const encryptedContent = await encryptMessage({ epoch: state.epoch, index, plaintext: text, signKey: this.identity.signKey });
      const res = await this.attempt(routes.sendMessage, {
        body: { receiverId, epochId: state.epoch.epochId, index, encryptedContent, messageType: 'text' },
      });
      if (res.status === 409 && res.error?.code === 'membership_changed' && attempt === 0) {
        this.sending.delete(receiverId);
        continue;
      }
      return res;
    }
  }

  private async sendingEpoch(receiverId: string): Promise<{ epoch: Epoch; next: number }> {
    const current = this.sending.get(receiverId);
    if (current && current.next < 100) return current;
    const m = await this.call(routes.conversationMembers, { query: { receiverId } });
    const { epoch, shares } = await createEpoch({
      conversationId: m.conversationId,
      senderId: this.id,
      membershipVersion: m.membershipVersion,
      recipients: m.members,
      signKey: this.identity.signKey,
    });
    await this.call(routes.createEpoch, { body: { epochId: epoch.epochId, receiverId, membershipVersion: m.membershipVersion, shares } });
    const state = { epoch, next: 0 };
    this.sending.set(receiverId, state);
    return state;
  }

  async history(receiverId: string, page: { before?: number; after?: number; limit?: number } = {}): Promise<Message[]> {
    return (await this.call(routes.history, { query: { receiverId, ...page } })).messages;
  }

  /**
   * Decrypts messages as the client would; `text` is null where this member holds no key. With
   * `stored` it uses those shares (e.g. read from the raw database) and public keys instead of
   * asking the server, and keeps nothing it opened.
   */
  async decrypt(messages: Message[], stored?: { shares: EpochShare[]; users: PublicUser[] }): Promise<DecryptedMessage[]> {
    const users = stored?.users ?? (await this.call(routes.users, {})).users;
    const storedShares = stored?.shares;
    const cache = storedShares ? new Map<string, Epoch | null>() : this.epochs;
    const missing = [...new Set(messages.map((m) => m.epochId))].filter((id) => !cache.has(id));
    if (missing.length) {
      const shares = storedShares
        ? storedShares.filter((s) => missing.includes(s.epochId))
        : (await this.call(routes.epochShares, { query: { ids: missing.join(',') } })).shares;
      for (const id of missing) cache.set(id, null);
      for (const share of shares) {
        const sender = users.find((u) => u.id === share.senderId);
        if (!sender) continue;
        const { verifyKey } = await importPublicIdentity(sender);
        const epoch = await openEpochShare({ share, recipientId: this.id, decryptKey: this.identity.decryptKey, senderVerifyKey: verifyKey });
        cache.set(share.epochId, epoch);
      }
    }
    const out: DecryptedMessage[] = [];
    for (const m of messages) {
      const epoch = cache.get(m.epochId);
      const sender = users.find((u) => u.id === m.senderId);
      let text: string | null = null;
      if (epoch && sender) {
        const { verifyKey } = await importPublicIdentity(sender);
        try {
          text = await decryptMessage({ epoch, index: m.index, encryptedContent: m.encryptedContent, senderVerifyKey: verifyKey });
        } catch (err) {
          if (!(err instanceof CryptoError)) throw err;
        }
      }
      out.push({ id: m.id, senderId: m.senderId, text });
    }
    return out;
  }

  /** Opens /ws with this member's session cookie and authenticates. */
  async connect(): Promise<TestSocket> {
    const socket = new TestSocket(this.baseUrl.replace(/^http/, 'ws') + SOCKET_PATH, this.cookie, this.wire);
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

  constructor(url: string, cookie: string, wire: string[]) {
    this.ws = new WebSocket(url, { headers: cookie ? { cookie } : {} });
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

  /** Resolves with the first frame (already received or coming) that matches, or fails after `ms`. */
  waitFor(match: (f: ServerFrame) => boolean, ms = 5000): Promise<ServerFrame> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.frames.find(match);
        if (found) {
          cleanup();
          resolve(found);
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
