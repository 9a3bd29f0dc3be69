/** The wrap bench's recipient keys, made the same way in Node (bench/wrap.ts) and in the page (bench/wrap/page.ts). */
import { KeyTrust, type PinStore } from '@enclave/client';
import { fingerprint, fromBase64, importPublicIdentity, toBase64, utf8, type SignedShareRecipient } from '@enclave/crypto';
import { limits, type PublicUser } from '@enclave/protocol';

const rsa = { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };

/** `count` RSA-OAEP-2048 public keys as members publish them (SPKI, base64). */
export function rsaPublicKeys(count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const pair = await crypto.subtle.generateKey(rsa, true, ['encrypt', 'decrypt']);
      return toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', pair.publicKey)));
    }),
  );
}

/** `count` X25519 share public keys as members publish them (raw, base64). */
export function sharePublicKeys(count: number): Promise<string[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const pair = (await crypto.subtle.generateKey({ name: 'X25519' }, true, ['deriveKey'])) as CryptoKeyPair;
      return toBase64(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
    }),
  );
}

/** A member's listed signing key (SPKI, base64) and share key with their signature over it, as the member list carries them. */
export type SignedShareKey = { signingPublicKey: string; sharePublicKey: string; signature: string };

/** `["enclave/share-key/v1", sharePublicKey]`: what a member's signing key signs over their share key (deriveShareIdentity). */
export const shareKeyBytes = (sharePublicKey: string): Uint8Array<ArrayBuffer> =>
  utf8(JSON.stringify(['enclave/share-key/v1', sharePublicKey]));

/** `count` members' signed share keys: a signing key and a share key of their own each, signed as an account signs its own. */
export async function signedShareKeys(count: number): Promise<SignedShareKey[]> {
  const shares = await sharePublicKeys(count);
  return Promise.all(
    shares.map(async (sharePublicKey) => {
      const pair = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
      const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, shareKeyBytes(sharePublicKey));
      const spki = await crypto.subtle.exportKey('spki', pair.publicKey);
      return { signingPublicKey: toBase64(new Uint8Array(spki)), sharePublicKey, signature: toBase64(new Uint8Array(signature)) };
    }),
  );
}

/** A member list as the web app holds it, with each member's share key as the channel key's state lists it. */
export type MemberList = { users: PublicUser[]; pending: { id: string; shareKey: { sharePublicKey: string; signature: string } }[] };

/** `members` recipients as a wrapper hands them to `wrapShares`: ids all different, the signed keys used in turn. */
export function signedRecipients(members: number, keys: readonly SignedShareKey[]): SignedShareRecipient[] {
  return Array.from({ length: members }, (_, i) => ({ id: crypto.randomUUID(), ...keys[i % keys.length]! }));
}

/**
 * A member list of `members` as `GET /api/users/all` gives it, with each one's share key pending
 * as the channel key's state lists it. Every member's encryption key differs (a real key with its
 * last four bytes set to the member's number) so that each has a fingerprint of their own, as in
 * a real list: KeyTrust hashes the keys to pin them and imports none of them.
 */
export function memberList(members: number, rsaKeys: readonly string[], keys: readonly SignedShareKey[]): MemberList {
  const users: MemberList['users'] = [];
  const pending: MemberList['pending'] = [];
  for (let i = 0; i < members; i++) {
    const id = crypto.randomUUID();
    const encryption = fromBase64(rsaKeys[i % rsaKeys.length]!);
    new DataView(encryption.buffer, encryption.byteOffset).setUint32(encryption.length - 4, i);
    const { signingPublicKey, sharePublicKey, signature } = keys[i % keys.length]!;
    users.push({
      id,
      username: `member${i}`,
      role: 'member',
      isCreatorAccount: false,
      isBanned: false,
      bannedReason: null,
      isCompromised: false,
      online: false,
      lastActivity: null,
      joinedAt: new Date(0).toISOString(),
      encryptionPublicKey: toBase64(encryption),
      signingPublicKey,
    });
    pending.push({ id, shareKey: { sharePublicKey, signature } });
  }
  return { users, pending };
}

/** A member's KeyTrust over this member list and pin store; a second one for the same `selfId` is their next session. */
export function trustOver(list: MemberList, pins: PinStore, selfId: string): KeyTrust {
  const { encryptionPublicKey, signingPublicKey } = list.users[0]!;
  return new KeyTrust({
    self: { id: selfId, encryptionPublicKey, signingPublicKey },
    pins,
    members: { current: async () => list.users, fresh: async () => list.users, including: async () => list.users },
    crypto: { fingerprint, importPublicIdentity },
  });
}

/**
 * What a wrapper's client does before it wraps (KeyTrust.checkShareRecipients): every member
 * listed, fingerprinted, compared with their pin (pinned on first sight), in pages of 5,000 as the
 * channel key's state hands them out.
 */
export async function checkRecipients(trust: KeyTrust, list: MemberList): Promise<void> {
  for (let start = 0; start < list.pending.length; start += limits.channelSharesPerUpload) {
    await trust.checkShareRecipients(list.pending.slice(start, start + limits.channelSharesPerUpload));
  }
}

/**
 * Pins every member (a first session), untimed, and gives what a later session does when the chat
 * opens (web/src/chat/use-key-pins.ts): the whole list checked against the pins at once.
 */
export async function listCheckOfNextSession(list: MemberList, pins: PinStore): Promise<() => Promise<unknown>> {
  const selfId = crypto.randomUUID();
  await trustOver(list, pins, selfId).check(list.users);
  return () => trustOver(list, pins, selfId).check(list.users);
}
