/**
 * A member whose published keys are not usable (they do not import, or the encryption key is not
 * RSA-2048 with e = 65537) is left out of a general-channel epoch and reported, instead of making
 * every epoch, hence every message, fail (docs/security.md §4). A direct message to them is still
 * refused: it would be wrapped for nobody but the sender.
 */
import {
  createAccount,
  createEpoch,
  encryptMessage,
  fingerprint,
  generateAccessToken,
  importPublicIdentity,
  toBase64,
} from '@enclave/crypto';
import type { CreateEpochRequest, Message, PublicUser } from '@enclave/protocol';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { KeyTrust, RecipientKeyError, type SkippedRecipient } from './key-trust';
import { MemoryPinStore } from './memory-pin-store';
import { SenderKeys } from './sender-keys';
import { listedMember as listed } from './testing';

const ALICE = '00000000-0000-4000-8000-00000000000a';
const BOB = '00000000-0000-4000-8000-00000000000b';
const CAROL = '00000000-0000-4000-8000-00000000000c';
const DAVE = '00000000-0000-4000-8000-00000000000d';

type Account = Awaited<ReturnType<typeof createAccount>>;
let alice: Account;
let bob: Account;

beforeAll(async () => {
  [alice, bob] = await Promise.all([createAccount(generateAccessToken()), createAccount(generateAccessToken())]);
});

/** SPKI (base64) of an RSA-OAEP key with a made-up modulus of `bits` bits: public keys are not checked for primality. */
async function rsaSpki(bits: number, exponent: number[] = [1, 0, 1]): Promise<string> {
  const n = crypto.getRandomValues(new Uint8Array(bits / 8));
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  const url = (bytes: Uint8Array) => toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'RSA', n: url(n), e: url(new Uint8Array(exponent)), ext: true },
    { name: 'RSA-OAEP', hash: 'SHA-256' },
    true,
    ['encrypt'],
  );
  return toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', key)));
}

/** Alice with the real crypto, over a member list of Alice, Bob and the unusable members given. */
function setup(unusable: PublicUser[]) {
  const users = [listed(ALICE, 'alice', alice.publicIdentity), listed(BOB, 'bob', bob.publicIdentity), ...unusable];
  const trust = new KeyTrust({
    self: { id: ALICE, ...alice.publicIdentity },
    pins: new MemoryPinStore(),
    members: { current: async () => users, fresh: async () => users, including: async () => users },
    crypto: { fingerprint, importPublicIdentity },
  });
  const uploads: CreateEpochRequest[] = [];
  const reports: { conversationId: string; skipped: SkippedRecipient[] }[] = [];
  const senderKeys = new SenderKeys({
    self: { id: ALICE, encryptionPublicKey: alice.publicIdentity.encryptionPublicKey },
    signKey: alice.privateIdentity.signKey,
    trust,
    crypto: { createEpoch, encryptMessage },
    onRecipientsSkipped: (conversationId, skipped) => reports.push({ conversationId, skipped }),
    api: {
      conversationMembers: async (receiverId) => ({
        conversationId: receiverId === 'all' ? 'general' : `dm:${[ALICE, receiverId].sort().join(':')}`,
        membershipVersion: 1,
        members: users
          .filter((u) => receiverId === 'all' || u.id === ALICE || u.id === receiverId)
          .map((u) => ({ id: u.id, encryptionPublicKey: u.encryptionPublicKey })),
      }),
      createEpoch: async (request) => void uploads.push(request),
      sendMessage: async (request): Promise<Message> => ({
        id: 1,
        conversationId: 'general',
        senderId: ALICE,
        senderUsername: 'alice',
        epochId: request.epochId,
        index: request.index,
        encryptedContent: request.encryptedContent,
        timestamp: '2026-01-01T00:00:00.000Z',
        expiresAt: null,
        clientMessageId: request.clientMessageId ?? null,
        targetId: request.targetId ?? null,
      }),
    },
  });
  return { trust, senderKeys, uploads, reports, users };
}

describe('members with unusable keys', () => {
  const cases: [string, () => Promise<string>][] = [
    ['random bytes', async () => toBase64(crypto.getRandomValues(new Uint8Array(294)))],
    ['an RSA-4096 key', () => rsaSpki(4096)],
    ['an RSA-1024 key', () => rsaSpki(1024)],
    ['an RSA-2048 key with e = 3', () => rsaSpki(2048, [3])],
    ['text that is not base64', async () => 'not base64!'],
  ];

  it.each(cases)('with %s as encryption key are skipped in the general channel and reported', async (_name, makeKey) => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const carol = listed(CAROL, 'carol', { ...bob.publicIdentity, encryptionPublicKey: await makeKey() });
    const t = setup([carol]);
    await t.senderKeys.send('all', 'hello');
    expect(t.uploads).toHaveLength(1);
    expect(t.uploads[0]!.shares.map((s) => s.recipientId).sort()).toEqual([ALICE, BOB].sort());
    expect(t.reports).toEqual([{ conversationId: 'general', skipped: [{ id: CAROL, username: 'carol' }] }]);
  });

  it('with a signing key that is not P-256 are skipped too', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const ec384 = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-384' }, true, ['sign', 'verify']);
    const signingPublicKey = toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', ec384.publicKey)));
    const t = setup([listed(DAVE, 'dave', { ...bob.publicIdentity, signingPublicKey })]);
    await t.senderKeys.send('all', 'hello');
    expect(t.uploads[0]!.shares.map((s) => s.recipientId).sort()).toEqual([ALICE, BOB].sort());
    expect(t.reports).toEqual([{ conversationId: 'general', skipped: [{ id: DAVE, username: 'dave' }] }]);
  });

  it('are named in what KeyTrust answers, and the others are kept', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const carol = listed(CAROL, 'carol', { ...bob.publicIdentity, encryptionPublicKey: await rsaSpki(4096) });
    const t = setup([carol]);
    const recipients = t.users.map((u) => ({ id: u.id, encryptionPublicKey: u.encryptionPublicKey }));
    const checked = await t.trust.checkRecipients('all', recipients);
    expect(checked.recipients.map((r) => r.id)).toEqual([ALICE, BOB]);
    expect(checked.skipped).toEqual([{ id: CAROL, username: 'carol' }]);
  });

  it('reports nothing skipped (an empty list) when every key is usable', async () => {
    const t = setup([]);
    await t.senderKeys.send('all', 'hello');
    expect(t.reports).toEqual([{ conversationId: 'general', skipped: [] }]);
  });

  it('still refuse a direct message to them', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const carol = listed(CAROL, 'carol', { ...bob.publicIdentity, encryptionPublicKey: await rsaSpki(4096) });
    const t = setup([carol]);
    await expect(t.senderKeys.send(CAROL, 'hi')).rejects.toThrow(RecipientKeyError);
    await expect(t.senderKeys.send(CAROL, 'hi')).rejects.toThrow(/key of carol is not a usable key/);
    expect(t.uploads).toEqual([]);
  });

  it('still refuse a changed key in the channel: that is a question of trust, not of usability', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const t = setup([]);
    await t.trust.check(t.users);
    t.users[1] = listed(BOB, 'bob', { ...bob.publicIdentity, encryptionPublicKey: await rsaSpki(4096) });
    await expect(t.senderKeys.send('all', 'hi')).rejects.toThrow(/key of bob changed/);
  });
});
