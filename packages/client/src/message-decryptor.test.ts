import type { Epoch } from '@enclave/crypto';
import type { EpochShare, Message } from '@enclave/protocol';
import { describe, expect, it, vi } from 'vitest';
import { KEY_CHANGED } from './key-trust';
import { MessageDecryptor } from './message-decryptor';

const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const MALLORY = '00000000-0000-4000-8000-000000000003';

class FakeCryptoError extends Error {
  kind: string;
  constructor(kind: string) {
    super(kind);
    this.kind = kind;
  }
}

const epochId = (n: number) => `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`;

function message(id: number, epoch: number, overrides: Partial<Message> = {}): Message {
  return {
    id,
    conversationId: 'general',
    senderId: BOB,
    senderUsername: 'bob',
    epochId: epochId(epoch),
    index: id,
    encryptedContent: `plain:${id}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    clientMessageId: null,
    targetId: null,
    expiresAt: null,
    ...overrides,
  };
}

function share(epoch: number, overrides: Partial<EpochShare> = {}): EpochShare {
  return {
    epochId: epochId(epoch),
    conversationId: 'general',
    senderId: BOB,
    membershipVersion: 1,
    wrappedKey: 'wrapped',
    signature: 'signed',
    ...overrides,
  };
}

/** A share of a sender epoch derived from the channel key `channelEpoch`, at `generation`, wrapped by Bob at `wrappedAt`. */
function derived(epoch: number, channelEpoch: string, generation: number, wrappedAt = 0, senderId = BOB): EpochShare {
  return {
    epochId: epochId(epoch),
    conversationId: 'general',
    senderId,
    membershipVersion: generation,
    channel: {
      generation,
      share: {
        header: {
          conversationId: 'general',
          epochId: channelEpoch,
          generation: wrappedAt,
          wrapperId: BOB,
          ephemeralPublicKey: 'e',
          signature: 's',
        },
        wrappedKey: 'w',
      },
    },
  };
}

function setup(shares: EpochShare[], options: { channel?: boolean } = {}) {
  const calls = { fetches: [] as string[][], opens: 0, channelOpens: [] as string[], chains: [] as string[] };
  let failNextFetch = false;
  const knownUsers = new Set([ME, BOB]);
  // Members whose listed key differs from the one pinned for them.
  const changedKeys = new Set<string>();
  const decryptor = new MessageDecryptor({
    selfId: ME,
    decryptKey: {} as CryptoKey,
    fetchShares: async (ids) => {
      calls.fetches.push([...ids]);
      if (failNextFetch) {
        failNextFetch = false;
        throw new Error('offline');
      }
      return shares.filter((s) => ids.includes(s.epochId));
    },
    verifyKeyFor: async (userId) => {
      if (!knownUsers.has(userId)) return null;
      return changedKeys.has(userId) ? KEY_CHANGED : ({ userId } as unknown as CryptoKey);
    },
    crypto: {
      openEpochShare: async ({ share: s, recipientId }) => {
        calls.opens += 1;
        if (recipientId !== ME) throw new FakeCryptoError('wrong_recipient');
        if (s.signature === 'forged') throw new FakeCryptoError('bad_signature');
        return {
          epochId: s.epochId,
          conversationId: s.conversationId,
          senderId: s.senderId,
          membershipVersion: 1,
          chainKey: {} as CryptoKey,
        };
      },
      decryptMessage: async ({ encryptedContent }) => {
        if (encryptedContent === 'tampered') throw new FakeCryptoError('bad_signature');
        if (encryptedContent === 'garbage') throw new FakeCryptoError('decrypt_failed');
        // `body:<json>` stands for an envelope v2, `plain:<text>` for a text.
        if (encryptedContent.startsWith('body:')) return { version: 2, plaintext: encryptedContent.slice(5) };
        return { version: 1, plaintext: encryptedContent.replace(/^plain:/, '') };
      },
    },
    ...(options.channel
      ? {
          channel: {
            share: { privateKey: {} as CryptoKey, sharePublicKey: 'mine', signature: 's' },
            crypto: {
              openChannelShare: async ({ header }) => {
                calls.channelOpens.push(header.epochId);
                return {
                  conversationId: header.conversationId,
                  epochId: header.epochId,
                  generation: header.generation,
                  key: {} as CryptoKey,
                };
              },
              advanceChannelSecret: async (secret, generation) => {
                if (generation < secret.generation) throw new FakeCryptoError('malformed');
                return { ...secret, generation };
              },
              senderChainKey: async (secret, senderId, senderEpochId) => {
                calls.chains.push(`${secret.epochId}/${secret.generation}/${senderId}/${senderEpochId}`);
                return {} as CryptoKey;
              },
            },
          },
        }
      : {}),
  });
  return { decryptor, calls, knownUsers, changedKeys, failNextFetch: () => void (failNextFetch = true) };
}

describe('MessageDecryptor', () => {
  it('fetches the shares of a batch in one call and opens each epoch once', async () => {
    const t = setup([share(1), share(2)]);
    const results = await t.decryptor.decrypt([message(1, 1), message(2, 1), message(3, 2), message(4, 2)]);
    expect(t.calls.fetches).toEqual([[epochId(1), epochId(2)]]);
    expect(t.calls.opens).toBe(2);
    expect([...results.values()]).toEqual([1, 2, 3, 4].map((id) => ({ status: 'ok', text: String(id) })));
  });

  it('opens the shares a history answer carried without fetching any', async () => {
    const t = setup([share(1), share(2)]);
    // The answer had no share of epoch 2: it was not wrapped for this member.
    const results = await t.decryptor.decrypt([message(1, 1), message(2, 2)], [share(1)]);
    expect(t.calls.fetches).toHaveLength(0);
    expect(results.get(1)).toEqual({ status: 'ok', text: '1' });
    expect(results.get(2)).toEqual({ status: 'unreadable', retryable: false, noShare: true });
  });

  it('decrypts a batch larger than one group of work, in order', async () => {
    const ids = Array.from({ length: 40 }, (_, i) => i + 1);
    const t = setup([share(1)]);
    const results = await t.decryptor.decrypt(ids.map((id) => message(id, 1)));
    expect([...results.keys()]).toEqual(ids);
    expect([...results.values()].every((r) => r.status === 'ok')).toBe(true);
  });

  it('does not fetch again for epochs it already opened', async () => {
    const t = setup([share(1)]);
    await t.decryptor.decrypt([message(1, 1)]);
    await t.decryptor.decrypt([message(2, 1)]);
    expect(t.calls.fetches).toHaveLength(1);
    expect(t.calls.opens).toBe(1);
  });

  it('shares one fetch between batches that overlap in time', async () => {
    const t = setup([share(1)]);
    await Promise.all([t.decryptor.decrypt([message(1, 1)]), t.decryptor.decrypt([message(2, 1)])]);
    expect(t.calls.fetches).toHaveLength(1);
  });

  it('asks for at most 100 epochs per call', async () => {
    const many = Array.from({ length: 150 }, (_, i) => i + 1);
    const t = setup(many.map((n) => share(n)));
    await t.decryptor.decrypt(many.map((n) => message(n, n)));
    expect(t.calls.fetches.map((ids) => ids.length)).toEqual([100, 50]);
  });

  it('marks messages of epochs without a share as unreadable, not wrapped for this member', async () => {
    const t = setup([]);
    const results = await t.decryptor.decrypt([message(1, 1)]);
    expect(results.get(1)).toEqual({ status: 'unreadable', retryable: false, noShare: true });
  });

  it('never opens own epochs through the server', async () => {
    const t = setup([]);
    const own: Epoch = { epochId: epochId(9), conversationId: 'general', senderId: ME, membershipVersion: 1, chainKey: {} as CryptoKey };
    t.decryptor.addOwnEpoch(own);
    const results = await t.decryptor.decrypt([message(1, 9, { senderId: ME })]);
    expect(t.calls.fetches).toHaveLength(0);
    expect(results.get(1)).toEqual({ status: 'ok', text: '1' });
  });

  it('reports a forged share or message as a bad signature, not as text', async () => {
    const t = setup([share(1, { signature: 'forged' }), share(2)]);
    const results = await t.decryptor.decrypt([message(1, 1), message(2, 2, { encryptedContent: 'tampered' })]);
    expect(results.get(1)).toEqual({ status: 'bad_signature' });
    expect(results.get(2)).toEqual({ status: 'bad_signature' });
  });

  it('refuses a message presented under another sender than the epoch signed for', async () => {
    const t = setup([share(1)]);
    t.knownUsers.add(MALLORY);
    const results = await t.decryptor.decrypt([message(1, 1, { senderId: MALLORY })]);
    expect(results.get(1)).toEqual({ status: 'bad_signature' });
  });

  it('refuses a message moved to another conversation', async () => {
    const t = setup([share(1)]);
    const moved = message(1, 1, { conversationId: `dm:${ME}:${BOB}` });
    expect((await t.decryptor.decrypt([moved])).get(1)).toEqual({ status: 'bad_signature' });
  });

  it('shows content that fails to decrypt as unreadable', async () => {
    const t = setup([share(1)]);
    const results = await t.decryptor.decrypt([message(1, 1, { encryptedContent: 'garbage' })]);
    expect(results.get(1)).toEqual({ status: 'unreadable', retryable: false });
  });

  it('does not trust plaintext longer than a message can be', async () => {
    const t = setup([share(1)]);
    const results = await t.decryptor.decrypt([message(1, 1, { encryptedContent: `plain:${'x'.repeat(501)}` })]);
    expect(results.get(1)?.status).toBe('unreadable');
  });

  it('reads an attachment body as its caption and reference, and a malformed body as unreadable', async () => {
    const t = setup([share(1)]);
    const attachment = {
      id: epochId(9),
      key: `${'A'.repeat(43)}=`,
      iv: 'A'.repeat(16),
      sha256: `${'B'.repeat(43)}=`,
      name: 'a.png',
      type: 'image/png',
      size: 3,
    };
    const body = JSON.stringify({ v: 2, attachment, caption: 'look' });
    const broken = JSON.stringify({ v: 2, attachment: { ...attachment, key: 'x' }, caption: 'look' });
    const results = await t.decryptor.decrypt([
      message(1, 1, { encryptedContent: `body:${body}` }),
      message(2, 1, { index: 1, encryptedContent: `body:${broken}` }),
    ]);
    expect(results.get(1)).toEqual({ status: 'ok', text: 'look', attachment });
    expect(results.get(2)).toEqual({ status: 'unreadable', retryable: false });
  });

  it('tries again after a failed share fetch', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const t = setup([share(1)]);
    t.failNextFetch();
    expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'unreadable', retryable: true });
    expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'ok', text: '1' });
    expect(t.calls.fetches).toHaveLength(2);
  });

  it('tries again once an unknown sender appears in the member list', async () => {
    const t = setup([share(1, { senderId: MALLORY })]);
    const later = message(1, 1, { senderId: MALLORY });
    expect((await t.decryptor.decrypt([later])).get(1)).toEqual({ status: 'unreadable', retryable: true });
    t.knownUsers.add(MALLORY);
    expect((await t.decryptor.decrypt([later])).get(1)).toEqual({ status: 'ok', text: '1' });
  });

  it('does not verify with a changed key: the message is unverified, never text', async () => {
    const t = setup([share(1), share(2)]);
    // Epoch 1 was opened while the key was still the pinned one; epoch 2 is met only afterwards.
    expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'ok', text: '1' });
    t.changedKeys.add(BOB);
    const results = await t.decryptor.decrypt([message(2, 1), message(3, 2)]);
    expect(results.get(2)).toEqual({ status: 'unverified' });
    expect(results.get(3)).toEqual({ status: 'unverified' });
    // Once the member accepts the new key (it is pinned), the messages verify again.
    t.changedKeys.delete(BOB);
    expect((await t.decryptor.decrypt([message(3, 2)])).get(3)).toEqual({ status: 'ok', text: '3' });
  });

  it('keeps verifying with keys that never changed', async () => {
    const t = setup([share(1)]);
    t.changedKeys.add(MALLORY);
    expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'ok', text: '1' });
  });

  it('hides a replay: the same (epochId, index) under a new id', async () => {
    const t = setup([share(1)]);
    expect((await t.decryptor.decrypt([message(1, 1, { index: 0 })])).get(1)).toEqual({ status: 'ok', text: '1' });
    const replay = message(7, 1, { index: 0, encryptedContent: 'plain:1' });
    expect((await t.decryptor.decrypt([replay])).get(7)).toEqual({ status: 'replayed' });
    // The original stays genuine when decrypted again (a retry), and so does another index.
    const again = await t.decryptor.decrypt([message(1, 1, { index: 0 }), message(8, 1, { index: 1 })]);
    expect(again.get(1)).toEqual({ status: 'ok', text: '1' });
    expect(again.get(8)).toEqual({ status: 'ok', text: '8' });
  });

  it('hides a replay met in the same batch, keeping the lowest id', async () => {
    const t = setup([share(1)]);
    const copy = { index: 3, encryptedContent: 'plain:x' };
    const results = await t.decryptor.decrypt([message(9, 1, copy), message(4, 1, copy)]);
    expect(results.get(4)).toEqual({ status: 'ok', text: 'x' });
    expect(results.get(9)).toEqual({ status: 'replayed' });
  });

  it("hides a replay of the member's own sent message", async () => {
    const t = setup([share(1)]);
    t.decryptor.addOwnMessage(message(5, 1, { index: 2 }));
    const copy = message(11, 1, { index: 2, encryptedContent: 'plain:5' });
    expect((await t.decryptor.decrypt([copy])).get(11)).toEqual({ status: 'replayed' });
  });
  describe('sender epochs derived from the channel key', () => {
    it('unwraps the member share of a channel epoch once, ratchets to each generation and derives each sender chain', async () => {
      const t = setup([derived(1, 'channel-a', 3), derived(2, 'channel-a', 5, 0, ME)], { channel: true });
      const results = await t.decryptor.decrypt([message(1, 1), message(2, 2, { senderId: ME })]);
      expect([...results.values()]).toEqual([
        { status: 'ok', text: '1' },
        { status: 'ok', text: '2' },
      ]);
      expect(t.calls.channelOpens).toEqual(['channel-a']);
      expect(t.calls.chains.sort()).toEqual([`channel-a/3/${BOB}/${epochId(1)}`, `channel-a/5/${ME}/${epochId(2)}`].sort());
    });

    it('reads nothing of a generation before the share (a newcomer) and nothing without a share key', async () => {
      const early = setup([derived(1, 'channel-a', 2, 4)], { channel: true });
      expect((await early.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'unreadable', retryable: false });
      const old = setup([derived(1, 'channel-a', 2)]);
      expect((await old.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'unreadable', retryable: false, noShare: true });
    });

    it('reads a message whose share a re-key has yet to wrap as not readable yet, and opens it once the share is there', async () => {
      const shares: EpochShare[] = [{ epochId: epochId(1), awaiting: true }];
      const t = setup(shares, { channel: true });
      expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'unreadable', retryable: true });
      shares[0] = derived(1, 'channel-a', 0);
      expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'ok', text: '1' });
    });

    it("trusts the channel share only under the wrapper's pinned key", async () => {
      const t = setup([derived(1, 'channel-a', 1)], { channel: true });
      t.changedKeys.add(BOB);
      expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'unverified' });
      expect(t.calls.channelOpens).toEqual([]);
    });

    it("refuses a message the server moved to another sender's derived epoch", async () => {
      const t = setup([derived(1, 'channel-a', 1, 0, MALLORY)], { channel: true });
      t.knownUsers.add(MALLORY);
      expect((await t.decryptor.decrypt([message(1, 1)])).get(1)).toEqual({ status: 'bad_signature' });
    });
  });
});
