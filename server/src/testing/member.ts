/**
 * A member as the browser would be, in Node: real keys from @enclave/crypto, and the web app's own
 * client (@enclave/client's MemberClient: key trust over an in-memory pin store, sender keys, the
 * decryptor, the chat store) over a Node transport — HTTP with a cookie jar (http.ts) and real
 * WebSockets (test-socket.ts) whose frames feed the client's one dispatcher. Integration tests so
 * run what the web app runs. Every payload it sends or receives is kept in `wire`.
 */
import { FrameDispatcher, MemberClient, MemoryPinStore, type CallRoute, type MemberList, type Outbound } from '@enclave/client';
import { fakeCall } from '@enclave/client/testing';
import { deriveLoginKey, generateAccessToken, openPrivateKeys, type NewAccount, type OpenedIdentity } from '@enclave/crypto';
import {
  routes,
  SOCKET_PATH,
  type EpochShare,
  type Message,
  type MessageContent,
  type PublicUser,
  type RouteDefinition,
  type SelfUser,
} from '@enclave/protocol';
import { HttpCaller, ReplyError, type Outcome } from './http';
import { testAccount } from './identities';
import { TestSocket } from './test-socket';

export { HttpCaller, NetworkFailure, outcomeOf, ReplyError } from './http';
export type { Outcome, Reply } from './http';
export { TestSocket } from './test-socket';

/** A message as a member reads it: `text` null when it could not be opened; a reply's target, an annotation. */
export type DecryptedMessage = { id: number; senderId: string; text: string | null } & Omit<MessageContent, 'text'>;

export class TestMember extends HttpCaller {
  /** A caller with no account at all. */
  static Anonymous = HttpCaller;

  /** The contacts' pinned fingerprints: they last as long as this member, across logins. */
  readonly pins = new MemoryPinStore();
  /** Every socket's frames, handed to the client (and to anything a test registers). */
  readonly frames = new FrameDispatcher();
  private memberClient: MemberClient | null = null;
  /** A member list shared with other members, read instead of fetching one's own (shareMemberList). */
  private sharedList: MemberList | null = null;
  /**
   * Waits before each resend of a message that got no answer or a 5xx (SenderKeys'
   * `sendRetryDelaysMs`); the web app's when unset. Read when the client is made (first use).
   */
  sendRetryDelaysMs?: readonly number[];
  /** Members a new channel key is wrapped for before it takes force (the client's own default when unset). Read when the client is made. */
  wrapBeforeForce?: number;
  /**
   * False for a member as a browser session from before share keys were kept: no share key
   * published, and the channel's epochs wrapped per sender. Read when the client is made.
   */
  shareKeyed = true;
  /** The answer that carried each sent message, for `send` to return. */
  private readonly sendOutcomes = new WeakMap<Message, Outcome<typeof routes.sendMessage>>();
  user!: SelfUser;
  identity!: OpenedIdentity;
  /** The key bundle `identity` was opened from. */
  private openedBundle: string | null = null;

  private constructor(
    baseUrl: string,
    readonly token: string,
    wire: string[],
    headers: Record<string, string>,
  ) {
    super(baseUrl, wire, headers);
  }

  /**
   * Registers with an invite key, then signs in with the new token. `options.account` makes the
   * keys instead of `testAccount` (identities.ts: a key pair made once per machine, sealed under the new token).
   */
  static async join(
    baseUrl: string,
    inviteKey: string,
    username: string,
    wire: string[] = [],
    options: {
      headers?: Record<string, string>;
      account?: (token: string) => Promise<Pick<NewAccount, 'publicIdentity' | 'encryptedPrivateKey'>>;
      /** A member whose client predates share keys (`shareKeyed`). */
      withoutShareKey?: boolean;
    } = {},
  ): Promise<TestMember> {
    const token = generateAccessToken();
    const member = new TestMember(baseUrl, token, wire, options.headers ?? {});
    const account = await (options.account ?? testAccount)(token);
    // Opened now for the share key registration carries, as the web app sends it; login then
    // finds the bundle opened.
    member.identity = await openPrivateKeys(token, account.encryptedPrivateKey);
    member.openedBundle = account.encryptedPrivateKey;
    member.shareKeyed = !options.withoutShareKey;
    const { sharePublicKey, signature } = member.identity.share;
    const res = await member.attempt(routes.register, {
      body: {
        inviteKey,
        username,
        loginKey: await deriveLoginKey(token),
        ...account.publicIdentity,
        encryptedPrivateKey: account.encryptedPrivateKey,
        ...(member.shareKeyed ? { shareKey: { sharePublicKey, signature } } : {}),
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
      // The same bundle opens to the same keys: a later login skips its PBKDF2.
      if (res.body.encryptedPrivateKey !== this.openedBundle) {
        this.identity = await openPrivateKeys(this.token, res.body.encryptedPrivateKey);
        this.openedBundle = res.body.encryptedPrivateKey;
      }
    }
    return res;
  }

  get id(): string {
    return this.user.id;
  }

  /**
   * Reads the member list through `list` from now on instead of fetching a copy of its own: the
   * load bench's thousands of members hold one list between them, not one each (3,000 lists of
   * 3,000 members outgrow the client's heap). Before the client is made (first send or decryption).
   */
  shareMemberList(list: MemberList): void {
    if (this.memberClient) throw new Error('the member list is shared before the client is made');
    this.sharedList = list;
  }

  /** The member's client, made at the first use after login and kept across later logins (same keys). */
  get client(): MemberClient {
    this.memberClient ??= this.newClient(this.transportCall, this.frames, this.sharedList ?? undefined);
    return this.memberClient;
  }

  private newClient(call: CallRoute, frames: FrameDispatcher, members?: MemberList): MemberClient {
    return new MemberClient({
      self: { id: this.id, ...this.identity.publicIdentity },
      keys: this.identity,
      ...(this.shareKeyed ? { share: this.identity.share } : {}),
      transport: { call, frames },
      pins: this.pins,
      ...(members ? { members } : {}),
      ...(this.sendRetryDelaysMs ? { sendRetryDelaysMs: this.sendRetryDelaysMs } : {}),
      ...(this.wrapBeforeForce ? { wrapBeforeForce: this.wrapBeforeForce } : {}),
    });
  }

  /** The client's calls: the route's answer, or a {@link ReplyError}; a message's answer is kept for `send`. */
  private readonly transportCall: CallRoute = async (route, input) => {
    const outcome = await this.attempt(route, input);
    if (outcome.status !== route.status) throw new ReplyError(route, outcome);
    if ((route as RouteDefinition) === routes.sendMessage) {
      const sent = outcome as unknown as Outcome<typeof routes.sendMessage>;
      if (sent.body) this.sendOutcomes.set(sent.body.message, sent);
    }
    // Parsed by this very route's schema (outcomeOf).
    return outcome.body as never;
  };

  /**
   * Sends a text as the web client does (MemberClient.send: rotation when the member set moved,
   * after `limits.epochMaxMessages` messages or after 7 days, recipients checked by KeyTrust).
   * Returns the server's reply to the message, refusals included; a refused members list or
   * epoch upload throws.
   */
  async send(receiverId: string, text: string | Outbound): Promise<Outcome<typeof routes.sendMessage>> {
    let message: Message;
    try {
      message = await this.client.send(receiverId, typeof text === 'string' ? { text } : text);
    } catch (error) {
      if (error instanceof ReplyError && error.route === routes.sendMessage) return error.outcome as Outcome<typeof routes.sendMessage>;
      throw error;
    }
    const outcome = this.sendOutcomes.get(message);
    if (!outcome) throw new Error('the sent message came without its answer');
    return outcome;
  }

  async history(receiverId: string, page: { before?: number; after?: number; limit?: number } = {}): Promise<Message[]> {
    return (await this.call(routes.history, { query: { receiverId, ...page } })).messages;
  }

  /**
   * Decrypts messages as the web client does (MessageDecryptor, senders' keys checked by KeyTrust
   * against this member's pins); `text` is null where this member holds no key or the message is
   * not to be trusted. The member list is fetched fresh first. With `stored` a client of its own
   * reads those shares (e.g. from the raw database) and public keys instead of asking the server,
   * and keeps nothing it opened.
   */
  async decrypt(messages: Message[], stored?: { shares: EpochShare[]; users: PublicUser[] }): Promise<DecryptedMessage[]> {
    let client: MemberClient;
    if (stored) {
      const call = fakeCall({
        users: async () => ({ users: stored.users }),
        epochShares: async ({ query }) => ({ shares: stored.shares.filter((s) => String(query.ids).split(',').includes(s.epochId)) }),
      });
      client = this.newClient(call, new FrameDispatcher());
    } else {
      client = this.client;
      await client.members.fresh();
    }
    const results = await client.decryptor.decrypt(messages);
    return messages.map((m) => {
      const result = results.get(m.id);
      if (result?.status !== 'ok') return { id: m.id, senderId: m.senderId, text: null };
      const { status: _ok, ...content } = result;
      return { id: m.id, senderId: m.senderId, ...content };
    });
  }

  /** Where this member's socket goes, and the headers of its upgrade (the session cookie among them). */
  socketTarget(): { url: string; headers: Record<string, string> } {
    return {
      url: this.baseUrl.replace(/^http/, 'ws') + SOCKET_PATH,
      headers: { ...this.headers, ...(this.cookie ? { cookie: this.cookie } : {}) },
    };
  }

  /** Opens /ws with this member's session cookie and authenticates; its frames reach the member's client. */
  async connect(): Promise<TestSocket> {
    const { url } = this.socketTarget();
    const socket = new TestSocket(url, this.cookie, this.wire, this.headers, this.frames.dispatch);
    await socket.opened;
    socket.send({ type: 'authenticate' });
    await socket.waitFor((f) => f.type === 'authenticated' || f.type === 'auth_failed');
    return socket;
  }
}
