import { FrameDispatcher, MemoryPinStore, RecipientKeyError, type MemberClient } from '@enclave/client';
import { createAccount, generateAccessToken, type EpochShareUpload, type PublicIdentity } from '@enclave/crypto';
import { conversationIdFor, type EpochShare, type Message, type PublicUser } from '@enclave/protocol';
import { QueryClient } from '@tanstack/react-query';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Session } from '../auth/auth-context';
import { fakeCall, listedMember, storedMessage, type RouteFakes } from '@enclave/client/testing';
import { ApiError } from '../net/api-error';
import { createMemberClient } from './member-client';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';

type Account = Awaited<ReturnType<typeof createAccount>>;

/**
 * The server as the chat sees it, in memory: a member list with public keys, epochs with their
 * shares, messages. One `api` per caller; the test may have it lie to one caller about someone's
 * keys, as a hostile server would.
 */
class FakeServer {
  private readonly users = new Map<string, PublicUser>();
  /** caller → member → the keys the server shows that caller instead of the real ones. */
  private readonly lies = new Map<string, Map<string, PublicIdentity>>();
  private readonly shares = new Map<
    string,
    { conversationId: string; senderId: string; membershipVersion: number; upload: EpochShareUpload[] }
  >();
  private readonly messages: Message[] = [];
  membershipVersion = 1;

  /** The caller's own shares of these epochs, as the server gives them (never another member's). */
  sharesOf(callerId: string, epochIds: readonly string[]): EpochShare[] {
    return epochIds.flatMap((epochId) => {
      const epoch = this.shares.get(epochId);
      const share = epoch?.upload.find((s) => s.recipientId === callerId);
      if (!epoch || !share) return [];
      const { conversationId, senderId, membershipVersion } = epoch;
      return [{ epochId, conversationId, senderId, membershipVersion, wrappedKey: share.wrappedKey, signature: share.signature }];
    });
  }

  join(id: string, username: string, keys: PublicIdentity): void {
    this.users.set(id, listedMember(id, username, keys));
  }

  /** From now on, shows `callerId` these keys for member `id`. */
  lieTo(callerId: string, id: string, keys: PublicIdentity): void {
    const lies = this.lies.get(callerId) ?? new Map<string, PublicIdentity>();
    lies.set(id, keys);
    this.lies.set(callerId, lies);
  }

  /** The member list as `callerId` is shown it. */
  usersFor(callerId: string): PublicUser[] {
    const lies = this.lies.get(callerId);
    return [...this.users.values()].map((u) => ({ ...u, ...lies?.get(u.id) }));
  }

  api(callerId: string): RouteFakes {
    const members = (receiverId: string) =>
      this.usersFor(callerId).filter((u) => receiverId === 'all' || u.id === callerId || u.id === receiverId);
    return {
      users: async () => ({ users: this.usersFor(callerId) }),
      conversationMembers: async ({ query: { receiverId } }) => ({
        conversationId: conversationIdFor(callerId, receiverId),
        membershipVersion: this.membershipVersion,
        members: members(receiverId).map((u) => ({ id: u.id, encryptionPublicKey: u.encryptionPublicKey })),
      }),
      createEpoch: async ({ body: request }) => {
        if (request.membershipVersion !== this.membershipVersion) {
          throw new ApiError(409, '409: changed', 'membership_changed');
        }
        this.shares.set(request.epochId, {
          conversationId: conversationIdFor(callerId, request.receiverId),
          senderId: callerId,
          membershipVersion: request.membershipVersion,
          upload: request.shares,
        });
        return { ok: true };
      },
      sendMessage: async ({ body: request }) => {
        const epoch = this.shares.get(request.epochId);
        if (!epoch || epoch.senderId !== callerId) throw new ApiError(400, '400: unknown epoch', 'bad_request');
        const message = storedMessage(this.messages.length + 1, {
          conversationId: epoch.conversationId,
          senderId: callerId,
          senderUsername: this.users.get(callerId)?.username ?? '?',
          epochId: request.epochId,
          index: request.index,
          encryptedContent: request.encryptedContent,
        });
        this.messages.push(message);
        return { message };
      },
      epochShares: async ({ query: { ids } }) => ({ shares: this.sharesOf(callerId, String(ids).split(',')) }),
      history: async ({ query: { receiverId } }) => {
        const messages = this.messages.filter((m) => m.conversationId === conversationIdFor(callerId, receiverId));
        return {
          messages,
          events: [],
          disappearingSeconds: 0,
          hasMore: false,
          shares: this.sharesOf(callerId, [...new Set(messages.map((m) => m.epochId))]),
        };
      },
    };
  }
}

let alice: Account;
let bob: Account;
let mallory: Account;

beforeAll(async () => {
  const newAccount = () => createAccount(generateAccessToken());
  [alice, bob, mallory] = await Promise.all([newAccount(), newAccount(), newAccount()]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

function signIn(server: FakeServer, id: string, username: string, account: Account) {
  const session: Session = {
    user: { id, username, role: 'member', isCreatorAccount: false, joinedAt: '2026-01-01T00:00:00.000Z' },
    publicIdentity: account.publicIdentity,
    privateIdentity: account.privateIdentity,
  };
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const call = fakeCall(server.api(id));
  const pins = new MemoryPinStore();
  const services = createMemberClient(session, queryClient, new FrameDispatcher(), { call, pins, historyCache: null });
  return { services, queryClient, call, pins };
}

/** What the member sees in a conversation: sender and text (or the reason there is none). */
async function read(services: MemberClient, selfId: string, receiverId: string) {
  const conversationId = conversationIdFor(selfId, receiverId);
  await services.open(receiverId);
  const view = services.store.view(conversationId);
  return view.messages.map((m) => {
    const result = view.results.get(m.id);
    return [m.senderId, result?.status === 'ok' ? result.text : result?.status];
  });
}

function setup() {
  const server = new FakeServer();
  server.join(ALICE, 'alice', alice.publicIdentity);
  server.join(BOB, 'bob', bob.publicIdentity);
  return { server, alice: signIn(server, ALICE, 'alice', alice), bob: signIn(server, BOB, 'bob', bob) };
}

describe('the member client in the browser', () => {
  it('sends a channel message that the other member reads, with real keys end to end', async () => {
    const t = setup();
    await t.alice.services.senderKeys.send('all', 'hello bob');
    await t.bob.services.senderKeys.send('all', 'hi alice');
    expect(await read(t.bob.services, BOB, 'all')).toEqual([
      [ALICE, 'hello bob'],
      [BOB, 'hi alice'],
    ]);
    expect(await read(t.alice.services, ALICE, 'all')).toEqual([
      [ALICE, 'hello bob'],
      [BOB, 'hi alice'],
    ]);
    // Each pinned the other on first sight, and nobody pinned themselves.
    expect((await t.alice.pins.read(ALICE)).map((p) => p.contact)).toEqual([BOB]);
    expect((await t.bob.pins.read(BOB)).map((p) => p.contact)).toEqual([ALICE]);
  });

  it('keeps a direct message between its two members', async () => {
    const t = setup();
    await t.alice.services.senderKeys.send(BOB, 'just for you');
    expect(await read(t.bob.services, BOB, ALICE)).toEqual([[ALICE, 'just for you']]);
  });

  it('refuses a changed key for reading and for sending until the member accepts it', async () => {
    const t = setup();
    await t.bob.services.senderKeys.send('all', 'before');
    expect(await read(t.alice.services, ALICE, 'all')).toEqual([[BOB, 'before']]);

    // The server now shows Alice Mallory's keys as Bob's.
    t.server.lieTo(ALICE, BOB, mallory.publicIdentity);
    await t.alice.services.members.fresh();
    t.bob.services.senderKeys.invalidate('general');
    await t.bob.services.senderKeys.send('all', 'after');
    expect(await read(t.alice.services, ALICE, 'all')).toEqual([
      [BOB, 'before'],
      [BOB, 'unverified'],
    ]);
    t.alice.services.senderKeys.invalidate('general');
    const refused: unknown = await t.alice.services.senderKeys.send('all', 'to bob?').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RecipientKeyError);
    expect(String(refused)).toMatch(/key of bob changed/);

    // Alice compared safety numbers (with Mallory, as it happens) and accepts: the key is trusted.
    const status = (await t.alice.services.trust.check(t.server.usersFor(ALICE))).get(BOB);
    expect(status?.changed).toBe(true);
    await t.alice.services.trust.accept(BOB, status!.fingerprint);
    await expect(t.alice.services.senderKeys.send('all', 'to mallory')).resolves.toMatchObject({ senderId: ALICE });
  });

  it("refuses to wrap for a key the server claims is the member's own", async () => {
    const t = setup();
    t.server.lieTo(ALICE, ALICE, mallory.publicIdentity);
    const refused: unknown = await t.alice.services.senderKeys.send('all', 'hello').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RecipientKeyError);
    expect(String(refused)).toMatch(/your own account/);
  });
});
