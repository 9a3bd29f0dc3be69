/**
 * ChannelKey's decisions over a scripted server and fake crypto: a join costs one wrap for the
 * newcomers and nothing more; no key in force means claim, wrap page by page, activate; another
 * member's claim is waited for; a newcomer waits for a wrap before making a key of their own.
 */
import type { ChannelSecret, ShareIdentity } from '@enclave/crypto';
import type { ChannelKeyState, UploadChannelShares } from '@enclave/protocol';
import { describe, expect, it, vi } from 'vitest';
import { ChannelKey, NEWCOMER_WAIT_MS, WRAP_BEFORE_FORCE, type ChannelKeyApi, type ChannelKeyCrypto } from './channel-key';
import { RecipientKeyError, unknownKeyRefused } from './key-trust';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const share: ShareIdentity = { privateKey: {} as CryptoKey, sharePublicKey: 'alice-share', signature: 's' };
const pendingOf = (id: string, generation?: number) => ({
  id,
  shareKey: { sharePublicKey: `share-${id}`, signature: 's' },
  ...(generation === undefined ? {} : { generation }),
});
const header = (epochId: string, generation: number) => ({
  conversationId: 'general',
  epochId,
  generation,
  wrapperId: ALICE,
  ephemeralPublicKey: 'e',
  signature: 's',
});
const refused = (code: string) => Object.assign(new Error(code), { status: 409, code });

/** Alice's channel key over a server whose answers the test scripts, in order. */
function setup(
  states: ChannelKeyState[],
  options: {
    trust?: ConstructorParameters<typeof ChannelKey>[0]['trust'];
    wrap?: ConstructorParameters<typeof ChannelKey>[0]['wrap'];
    after?: Partial<Record<keyof ChannelKeyApi, (arg: never) => void>>;
  } = {},
) {
  let now = 0;
  const calls: string[] = [];
  const uploads: UploadChannelShares[] = [];
  const crypto: ChannelKeyCrypto = {
    newChannelSecret: async (conversationId, epochId) => ({ conversationId, epochId, generation: 0, key: {} as CryptoKey }),
    advanceChannelSecret: async (secret, generation) => ({ ...secret, generation }),
    openChannelShare: async ({ header: h }) => ({
      conversationId: 'general',
      epochId: h.epochId,
      generation: h.generation,
      key: {} as CryptoKey,
    }),
    senderChainKey: async (secret: ChannelSecret, senderId, senderEpochId) =>
      ({ derived: `${secret.epochId}/${secret.generation}/${senderId}/${senderEpochId}` }) as unknown as CryptoKey,
    startWrap: async ({ secret }) => ({ header: header(secret.epochId, secret.generation), ephemeralPrivateKey: {} as CryptoKey }),
  };
  const channel = new ChannelKey({
    self: { id: ALICE, signingPublicKey: 'alice-signing', share },
    signKey: {} as CryptoKey,
    api: {
      state: async () => {
        calls.push('state');
        const next = states.length > 1 ? states.shift()! : states[0]!;
        return next;
      },
      claim: async (epochId) => {
        calls.push(`claim ${epochId.length}`);
        options.after?.claim?.(epochId as never);
      },
      uploadShares: async (upload) => {
        calls.push(`upload ${upload.shares.map((s) => s.recipientId).join(',')}`);
        uploads.push(upload);
      },
      activate: async () => void calls.push('activate'),
      createSenderEpoch: async ({ membershipVersion }) => {
        calls.push(`sender epoch at ${membershipVersion}`);
        options.after?.createSenderEpoch?.(membershipVersion as never);
      },
    },
    crypto,
    wrap: options.wrap ?? (async ({ recipients }) => recipients.map((r) => ({ recipientId: r.id, wrappedKey: `w-${r.sharePublicKey}` }))),
    trust: options.trust ?? {
      checkShareRecipients: async (pending) => pending.map((p) => ({ id: p.id, ...p.shareKey, signingPublicKey: `signing-${p.id}` })),
      verifyKeyFor: async () => ({}) as CryptoKey,
    },
    members: { including: async () => [] },
    sleep: async (ms) => {
      calls.push(`sleep ${ms}`);
      now += ms;
    },
    now: () => now,
  });
  return { channel, calls, uploads };
}

const inForce = (fields: Partial<ChannelKeyState> = {}): ChannelKeyState => ({
  membershipVersion: 7,
  epoch: { id: 'channel-1', baseVersion: 5, ownShare: { header: header('channel-1', 1), wrappedKey: 'w' } },
  pending: [],
  rekey: null,
  ...fields,
});

describe('ChannelKey', () => {
  it('derives a sender epoch from the key in force at its current generation, with no wrap', async () => {
    const { channel, calls, uploads } = setup([inForce()]);
    const epoch = await channel.newSenderEpoch();
    expect(calls).toEqual(['state', 'sender epoch at 7']);
    expect(uploads).toEqual([]);
    expect(epoch).toMatchObject({ conversationId: 'general', senderId: ALICE, membershipVersion: 7 });
    // Generation 2: the membership version 7 less the key's base 5.
    expect(epoch.chainKey).toEqual({ derived: `channel-1/2/${ALICE}/${epoch.epochId}` });
  });

  it('wraps once for the newcomers, at the current generation, then derives', async () => {
    const { channel, calls, uploads } = setup([inForce({ pending: [pendingOf(BOB), pendingOf(CAROL)] }), inForce()]);
    await channel.newSenderEpoch();
    expect(calls).toEqual(['state', `upload ${BOB},${CAROL}`, 'state', 'sender epoch at 7']);
    expect(uploads[0]!.header.generation).toBe(2);
  });

  it('wraps nothing when a newcomer share key does not hold: the refusal reaches the sender', async () => {
    const { channel, uploads } = setup([inForce({ pending: [pendingOf(BOB)] })], {
      trust: {
        checkShareRecipients: async () => {
          throw new RecipientKeyError('The key of bob changed: compare the safety number before sending.');
        },
        verifyKeyFor: async () => ({}) as CryptoKey,
      },
    });
    await expect(channel.newSenderEpoch()).rejects.toThrow('The key of bob changed');
    expect(uploads).toEqual([]);
  });

  it('wraps nothing when the wrap finds a share key its member did not sign: the refusal reaches the sender', async () => {
    const wrapped: string[][] = [];
    const { channel, uploads } = setup([inForce({ pending: [pendingOf(BOB)] })], {
      wrap: async ({ recipients }) => {
        wrapped.push(recipients.map((r) => `${r.id}/${r.signingPublicKey}`));
        throw Object.assign(new Error(`the share key of ${BOB} is not signed by their signing key`), { kind: 'bad_signature' });
      },
    });
    await expect(channel.newSenderEpoch()).rejects.toThrow(new RecipientKeyError(unknownKeyRefused));
    // Bob's share key goes to the wrap with the signing key the trust listed for him.
    expect(wrapped).toEqual([[`${BOB}/signing-${BOB}`]]);
    expect(uploads).toEqual([]);
  });

  it('with no key in force, claims the next, wraps it page by page for every member, itself with its own key, and activates it', async () => {
    const claimed = (pending: ChannelKeyState['pending']): ChannelKeyState => ({
      membershipVersion: 9,
      epoch: null,
      pending,
      rekey: { by: ALICE, epochId: 'unknown until claimed', until: '2026-01-01T00:00:00.000Z' },
    });
    const states = [
      { membershipVersion: 9, epoch: null, pending: [], rekey: null },
      claimed([pendingOf(ALICE), pendingOf(BOB)]),
      claimed([pendingOf(CAROL)]),
      claimed([]),
    ];
    // The claimed epoch's id is only known once claimed: the script answers with it.
    const { channel, calls, uploads } = setup(states, {
      after: {
        claim: (epochId: string) => {
          for (const s of states) if (s.rekey) s.rekey.epochId = epochId;
        },
      },
    });
    states.push(
      inForce({ membershipVersion: 9, epoch: { id: 'made', baseVersion: 9, ownShare: { header: header('made', 0), wrappedKey: 'w' } } }),
    );
    await channel.newSenderEpoch();
    expect(calls).toEqual([
      'state',
      'claim 36',
      'state',
      `upload ${BOB},${ALICE}`,
      'state',
      `upload ${CAROL}`,
      'state',
      'activate',
      'state',
      'sender epoch at 9',
    ]);
    // Alice's own share is wrapped with her local share key, never the listed one.
    expect(uploads[0]!.shares.find((s) => s.recipientId === ALICE)?.wrappedKey).toBe('w-alice-share');
    expect(uploads.every((u) => u.header.generation === 0)).toBe(true);
  });

  it('wraps each member at the generation they joined at, or its own if later: one upload per generation', async () => {
    // Alice's share is of generation 1; the key is at generation 2.
    const { channel, calls, uploads } = setup([inForce({ pending: [pendingOf(BOB, 0), pendingOf(CAROL, 2)] }), inForce()]);
    await channel.newSenderEpoch();
    expect(calls).toEqual(['state', `upload ${BOB}`, `upload ${CAROL}`, 'state', 'sender epoch at 7']);
    expect(uploads.map((u) => u.header.generation)).toEqual([1, 2]);
  });

  it('activates a new key once the most recently signed-in members have it, and wraps for the rest while the send goes on', async () => {
    const others = Array.from({ length: WRAP_BEFORE_FORCE + 99 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    const rekey = { by: ALICE, epochId: 'unknown until claimed', until: '2026-01-01T00:00:00.000Z' };
    const rest = [...others.slice(WRAP_BEFORE_FORCE), ALICE].map((id) => pendingOf(id, 0));
    // After activation Alice holds no share of her own key yet: the background wrap reaches her last.
    const made = (pending: ChannelKeyState['pending']): ChannelKeyState => ({
      membershipVersion: 9,
      epoch: { id: rekey.epochId, baseVersion: 9, ownShare: null },
      pending,
      rekey: pending.length ? rekey : null,
    });
    const states: ChannelKeyState[] = [
      { membershipVersion: 9, epoch: null, pending: [], rekey: null },
      { membershipVersion: 9, epoch: null, pending: [...others.map((id) => pendingOf(id, 0)), pendingOf(ALICE, 0)], rekey },
    ];
    const { channel, calls, uploads } = setup(states, {
      after: {
        claim: (epochId: string) => {
          rekey.epochId = epochId;
          states.push(made(rest), made(rest), made([]));
        },
      },
    });
    const epoch = await channel.newSenderEpoch();
    await vi.waitFor(() => expect(uploads).toHaveLength(2));
    expect(calls.indexOf('activate')).toBeLessThan(calls.indexOf('sender epoch at 9'));
    expect(uploads[0]!.shares).toHaveLength(WRAP_BEFORE_FORCE);
    expect(uploads[1]!.shares.map((s) => s.recipientId)).toEqual(rest.map((p) => p.id));
    expect(uploads[1]!.shares.at(-1)?.wrappedKey).toBe('w-alice-share');
    // The send derives from the key Alice made, which she holds before her share of it is stored.
    expect(epoch.chainKey).toEqual({ derived: `${rekey.epochId}/0/${ALICE}/${epoch.epochId}` });
  });

  it("waits while another member's claim holds, then derives from the key they made", async () => {
    const making: ChannelKeyState = {
      membershipVersion: 9,
      epoch: null,
      pending: [],
      rekey: { by: BOB, epochId: 'bobs', until: '2026-01-01T00:00:00.000Z' },
    };
    const { channel, calls } = setup([making, making, inForce()]);
    await channel.newSenderEpoch();
    expect(calls).toEqual(['state', 'sleep 500', 'state', 'sleep 500', 'state', 'sender epoch at 7']);
  });

  it('as a newcomer nobody wrapped for, waits for a wrap, then makes a key of its own', async () => {
    const shareless = inForce({ epoch: { id: 'channel-1', baseVersion: 5, ownShare: null }, pending: [pendingOf(ALICE)] });
    let made = false;
    const { channel, calls } = setup([shareless], {
      after: {
        claim: () => {
          made = true;
          throw refused('conflict');
        },
      },
    });
    await expect(channel.newSenderEpoch()).rejects.toThrow("the channel's key has no share for this member");
    expect(made).toBe(true);
    const sleeps = calls.filter((c) => c.startsWith('sleep')).length;
    expect(sleeps * 500).toBe(NEWCOMER_WAIT_MS);
    expect(calls.indexOf('claim 36')).toBeGreaterThan(calls.lastIndexOf('sleep 500'));
  });

  it('looks again when the server says the members moved under a sender epoch', async () => {
    let first = true;
    const { channel, calls } = setup([inForce(), inForce({ membershipVersion: 8 })], {
      after: {
        createSenderEpoch: () => {
          if (!first) return;
          first = false;
          throw refused('membership_changed');
        },
      },
    });
    const epoch = await channel.newSenderEpoch();
    expect(calls).toEqual(['state', 'sender epoch at 7', 'state', 'sender epoch at 8']);
    expect(epoch.membershipVersion).toBe(8);
  });
});
