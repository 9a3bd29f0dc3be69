import type { Epoch } from '@enclave/crypto';
import type { ConversationMembersResponse, CreateEpochRequest, Message, PublicUser, SendMessageRequest } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { KeyTrust, RecipientKeyError } from './key-trust';
import { MemoryPinStore } from './memory-pin-store';
import { MEMBERSHIP_RESENDS, SenderKeys, type RecipientTrust, type SenderKeysCrypto } from './sender-keys';
import { listedMember } from './testing';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const DAY = 24 * 60 * 60 * 1000;
/** Alice's own copy of her key, derived from her private key. */
const ALICE_KEY = 'alice-public-key';

/** An api failure as the web's ApiError and the test client's errors carry it: `status` and `code`. */
class FakeApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(`${status}: ${code}`);
  }
}

const membershipChanged = () => new FakeApiError(409, 'membership_changed');

function listed(id: string): PublicUser {
  return listedMember(id, id.slice(-1), { encryptionPublicKey: id === ALICE ? ALICE_KEY : `key-${id}`, signingPublicKey: `sig-${id}` });
}

/** The real trust over a member list of Alice, Bob and Carol, with fake key crypto. */
function realTrust(): KeyTrust {
  const users = [ALICE, BOB, CAROL].map(listed);
  return new KeyTrust({
    self: { id: ALICE, encryptionPublicKey: ALICE_KEY, signingPublicKey: `sig-${ALICE}` },
    pins: new MemoryPinStore(),
    members: { current: async () => users, fresh: async () => users, including: async () => users },
    crypto: {
      fingerprint: async (keys) => `fp:${keys.encryptionPublicKey}/${keys.signingPublicKey}`,
      importPublicIdentity: async () => ({ encryptKey: {} as CryptoKey, verifyKey: {} as CryptoKey }),
    },
  });
}

function setup(
  options: {
    members?: string[];
    version?: number;
    /** By default the real {@link KeyTrust}. */
    trust?: RecipientTrust;
    /** The key the server's members answer gives for Alice herself (by default her own). */
    serverKeyForSelf?: string;
  } = {},
) {
  let version = options.version ?? 1;
  let memberIds = options.members ?? [ALICE, BOB];
  let now = 1_000_000;
  let epochCounter = 0;
  let messageId = 0;
  const calls = {
    members: 0,
    epochs: [] as CreateEpochRequest[],
    sends: [] as SendMessageRequest[],
  };
  /** Failures to inject, consumed in order. */
  const failSend: FakeApiError[] = [];
  const failEpoch: FakeApiError[] = [];

  const crypto: SenderKeysCrypto = {
    createEpoch: async ({ conversationId, senderId, membershipVersion, recipients }) => {
      epochCounter += 1;
      const epochId = `00000000-0000-4000-9000-${String(epochCounter).padStart(12, '0')}`;
      const epoch: Epoch = { epochId, conversationId, senderId, membershipVersion, chainKey: {} as CryptoKey };
      return { epoch, shares: recipients.map((r) => ({ recipientId: r.id, wrappedKey: `w-${r.id}`, signature: 's' })) };
    },
    encryptMessage: async ({ epoch, index, plaintext, version = 1 }) => `${epoch.epochId}/${index}/v${version}/${plaintext}`,
  };

  const created: Epoch[] = [];
  const keys = new SenderKeys({
    self: { id: ALICE, encryptionPublicKey: ALICE_KEY },
    signKey: {} as CryptoKey,
    now: () => now,
    crypto,
    onEpochCreated: (epoch) => created.push(epoch),
    trust: options.trust ?? realTrust(),
    api: {
      conversationMembers: async (receiverId): Promise<ConversationMembersResponse> => {
        calls.members += 1;
        const conversationId = receiverId === 'all' ? 'general' : `dm:${[ALICE, receiverId].sort().join(':')}`;
        return {
          conversationId,
          membershipVersion: version,
          members: memberIds.map((id) => ({
            id,
            encryptionPublicKey: id === ALICE ? (options.serverKeyForSelf ?? ALICE_KEY) : `key-${id}`,
          })),
        };
      },
      createEpoch: async (request) => {
        const failure = failEpoch.shift();
        if (failure) throw failure;
        calls.epochs.push(request);
      },
      sendMessage: async (request): Promise<Message> => {
        const failure = failSend.shift();
        if (failure) throw failure;
        calls.sends.push(request);
        messageId += 1;
        return {
          id: messageId,
          conversationId: 'general',
          senderId: ALICE,
          senderUsername: 'alice',
          epochId: request.epochId,
          index: request.index,
          encryptedContent: request.encryptedContent,
          timestamp: new Date(now).toISOString(),
          expiresAt: null,
          clientMessageId: request.clientMessageId ?? null,
          targetId: request.targetId ?? null,
        };
      },
    },
  });

  return {
    keys,
    calls,
    created,
    failSend,
    failEpoch,
    advance: (ms: number) => void (now += ms),
    setVersion: (v: number) => void (version = v),
    setMembers: (ids: string[]) => void (memberIds = ids),
  };
}

describe('SenderKeys', () => {
  it('creates an epoch for the first message and reuses it with increasing indexes', async () => {
    const t = setup();
    await t.keys.send('all', 'one');
    await t.keys.send('all', 'two');
    expect(t.calls.members).toBe(1);
    expect(t.calls.epochs).toHaveLength(1);
    expect(t.calls.sends.map((s) => s.index)).toEqual([0, 1]);
    expect(t.calls.sends[0]?.epochId).toBe(t.calls.epochs[0]?.epochId);
    expect(t.created).toHaveLength(1);
  });

  it('sends an attachment as a v2 body with its caption, and names it for the server to link', async () => {
    const t = setup();
    const attachment = {
      id: '00000000-0000-4000-8000-0000000000aa',
      key: 'k',
      iv: 'i',
      sha256: 'h',
      name: 'a.png',
      type: 'image/png',
      size: 3,
    };
    await t.keys.send('all', { text: 'look', attachment });
    await t.keys.send('all', 'plain');
    const [withFile, text] = t.calls.sends;
    expect(withFile?.attachmentIds).toEqual([attachment.id]);
    expect(withFile?.encryptedContent).toBe(`${withFile?.epochId}/0/v2/${JSON.stringify({ v: 2, attachment, caption: 'look' })}`);
    expect(text?.attachmentIds).toBeUndefined();
    expect(text?.encryptedContent).toMatch(/\/1\/v1\/plain$/);
  });

  it('uploads one share per member at the version the server gave', async () => {
    const t = setup({ members: [ALICE, BOB, CAROL], version: 7 });
    await t.keys.send('all', 'hello');
    const upload = t.calls.epochs[0];
    expect(upload?.membershipVersion).toBe(7);
    expect(upload?.receiverId).toBe('all');
    expect(upload?.shares.map((s) => s.recipientId).sort()).toEqual([ALICE, BOB, CAROL].sort());
  });

  it('wraps for the sender too when the server left them out', async () => {
    const t = setup({ members: [BOB] });
    await t.keys.send('all', 'hello');
    expect(t.calls.epochs[0]?.shares.map((s) => s.recipientId)).toContain(ALICE);
  });

  it('starts a new epoch after 100 messages', async () => {
    const t = setup();
    for (let i = 0; i < 100; i++) await t.keys.send('all', `m${i}`);
    expect(t.calls.epochs).toHaveLength(1);
    expect(t.calls.sends.at(-1)?.index).toBe(99);
    await t.keys.send('all', 'm100');
    expect(t.calls.epochs).toHaveLength(2);
    expect(t.calls.sends.at(-1)?.index).toBe(0);
    expect(t.calls.sends.at(-1)?.epochId).toBe(t.calls.epochs[1]?.epochId);
  });

  it('starts a new epoch once the current one is 7 days old', async () => {
    const t = setup();
    await t.keys.send('all', 'monday');
    t.advance(7 * DAY - 1);
    await t.keys.send('all', 'still fresh');
    expect(t.calls.epochs).toHaveLength(1);
    t.advance(1);
    await t.keys.send('all', 'a week later');
    expect(t.calls.epochs).toHaveLength(2);
  });

  it('starts a new epoch after a membership_changed frame with a newer version', async () => {
    const t = setup({ version: 3 });
    await t.keys.send('all', 'before');
    t.keys.membershipChanged('general', 3);
    await t.keys.send('all', 'same version');
    expect(t.calls.epochs).toHaveLength(1);
    t.setVersion(4);
    t.keys.membershipChanged('general', 4);
    await t.keys.send('all', 'after join');
    expect(t.calls.epochs).toHaveLength(2);
    expect(t.calls.epochs[1]?.membershipVersion).toBe(4);
  });

  it('ignores frames about other conversations', async () => {
    const t = setup();
    await t.keys.send('all', 'one');
    t.keys.membershipChanged(`dm:${[ALICE, BOB].sort().join(':')}`, 99);
    await t.keys.send('all', 'two');
    expect(t.calls.epochs).toHaveLength(1);
  });

  it('rotates and resends once when the server answers 409 membership_changed', async () => {
    const t = setup();
    await t.keys.send('all', 'first');
    t.setVersion(2);
    t.failSend.push(membershipChanged());
    const message = await t.keys.send('all', 'second');
    expect(t.calls.epochs).toHaveLength(2);
    expect(t.calls.epochs[1]?.membershipVersion).toBe(2);
    expect(message.epochId).toBe(t.calls.epochs[1]?.epochId);
    expect(message.index).toBe(0);
  });

  it('resends again when members join one after another, and gives up after three resends', async () => {
    const t = setup();
    t.failSend.push(membershipChanged(), membershipChanged());
    await t.keys.send('all', 'x');
    expect(t.calls.epochs).toHaveLength(3);

    const u = setup();
    u.failSend.push(...Array.from({ length: MEMBERSHIP_RESENDS + 1 }, membershipChanged));
    await expect(u.keys.send('all', 'x')).rejects.toMatchObject({ status: 409 });
    expect(u.calls.epochs).toHaveLength(MEMBERSHIP_RESENDS + 1);
  });

  it('does not resend on other errors', async () => {
    const t = setup();
    t.failSend.push(new FakeApiError(429, 'rate_limited'));
    await expect(t.keys.send('all', 'x')).rejects.toMatchObject({ status: 429 });
    expect(t.calls.sends).toHaveLength(0);
  });

  it('asks for the members again when they changed during the upload', async () => {
    const t = setup();
    t.failEpoch.push(membershipChanged());
    await t.keys.send('all', 'x');
    expect(t.calls.members).toBe(2);
    expect(t.calls.epochs).toHaveLength(1);
  });

  it('lets concurrent first sends share one rotation and distinct indexes', async () => {
    const t = setup();
    await Promise.all([t.keys.send('all', 'a'), t.keys.send('all', 'b'), t.keys.send('all', 'c')]);
    expect(t.calls.epochs).toHaveLength(1);
    expect(t.calls.sends.map((s) => s.index).sort()).toEqual([0, 1, 2]);
  });

  it('never reuses or overflows an index when sends race at the end of an epoch', async () => {
    const t = setup();
    for (let i = 0; i < 98; i++) await t.keys.send('all', `m${i}`);
    await Promise.all([t.keys.send('all', 'x'), t.keys.send('all', 'y'), t.keys.send('all', 'z')]);
    const pairs = t.calls.sends.map((s) => `${s.epochId}/${s.index}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    expect(Math.max(...t.calls.sends.map((s) => s.index))).toBeLessThan(100);
    expect(t.calls.epochs).toHaveLength(2);
  });

  it('keeps separate epochs per conversation', async () => {
    const t = setup();
    await t.keys.send('all', 'channel');
    await t.keys.send(BOB, 'dm');
    expect(t.calls.epochs.map((e) => e.receiverId)).toEqual(['all', BOB]);
    expect(t.calls.sends.map((s) => s.index)).toEqual([0, 0]);
  });

  it('refuses to wrap a direct message for anyone outside the pair', async () => {
    const t = setup({ members: [ALICE, BOB, CAROL] });
    const error: unknown = await t.keys.send(BOB, 'secret').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecipientKeyError);
    expect(String(error)).toMatch(/two members/);
    expect(t.calls.epochs).toHaveLength(0);
    expect(t.calls.sends).toHaveLength(0);
  });

  it("wraps for the sender with the sender's own key", async () => {
    const seen: string[] = [];
    const t = setup({
      members: [BOB],
      trust: {
        checkRecipients: async (_receiverId, recipients) => {
          seen.push(...recipients.filter((r) => r.id === ALICE).map((r) => r.encryptionPublicKey));
          return { recipients: [...recipients], skipped: [] };
        },
      },
    });
    await t.keys.send('all', 'hello');
    expect(seen).toEqual([ALICE_KEY]);
  });

  it('refuses a members answer that lists the sender with another key, and uploads no epoch', async () => {
    for (const receiver of ['all', BOB]) {
      const t = setup({ members: [ALICE, BOB], serverKeyForSelf: 'server-chosen-key' });
      const error: unknown = await t.keys.send(receiver, 'hello').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RecipientKeyError);
      expect(t.calls.members).toBe(1);
      expect(t.calls.epochs).toHaveLength(0);
      expect(t.calls.sends).toHaveLength(0);
      expect(t.created).toHaveLength(0);
    }
  });

  it('wraps nothing when a recipient key is not the one the member knows', async () => {
    const t = setup({
      trust: {
        checkRecipients: async (_receiverId, recipients) => {
          if (recipients.some((r) => r.id === BOB)) throw new Error("bob's key changed");
          return { recipients: [...recipients], skipped: [] };
        },
      },
    });
    await expect(t.keys.send('all', 'hello')).rejects.toThrow(/key changed/);
    expect(t.calls.epochs).toHaveLength(0);
    expect(t.calls.sends).toHaveLength(0);
  });
});
