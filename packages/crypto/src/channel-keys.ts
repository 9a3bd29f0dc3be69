/**
 * Channel keys: one secret per channel epoch, ratcheted forward on every join, from which each
 * sender's chain key is derived (docs/scaling.md §6). A join then costs the senders nothing: the
 * newcomer gets the secret of the generation they joined at, in one share, and cannot run the
 * ratchet backwards to an earlier generation. A removal starts a new epoch, wrapped once for each
 * remaining member: per member one X25519 agreement with the upload's ephemeral key and a 40-byte
 * AES-KW wrap; one ECDSA signature covers the upload's header. A share is authenticated by that
 * signature together with AES-KW's integrity check: only the holder of the signed ephemeral
 * private key (and the recipient) can make a wrap that opens under the key agreement.
 */
import { CryptoError, translateErrors } from './errors';
import { fromBase64, fromHex, toBase64, utf8 } from './encoding';
import { concatBytes, randomBytes, wipe } from './bytes';
import { ecdsaImport, ecdsaSha256 } from './algorithms';

const SECRET_BYTES = 32;
/** AES-KW of a 32-byte secret: the secret and one 8-byte integrity block. */
const WRAPPED_BYTES = SECRET_BYTES + 8;
const x25519: Algorithm = { name: 'X25519' };
const hmacSha256: HmacImportParams = { name: 'HMAC', hash: 'SHA-256' };

/**
 * A channel epoch's secret at one generation. `key` is an extractable HMAC-SHA256 key: extractable
 * because a member must be able to wrap it for a newcomer, HMAC because the ratchet and the chain
 * derivations are single HMAC-SHA256 blocks (HKDF-Expand of one block). The generation counts the
 * joins since the epoch started.
 */
export type ChannelSecret = { conversationId: string; epochId: string; generation: number; key: CryptoKey };

/** The signed part of one upload of shares: who wrapped which generation, with which ephemeral key. */
export type ChannelWrapHeader = {
  conversationId: string;
  epochId: string;
  generation: number;
  wrapperId: string;
  /** The upload's ephemeral X25519 public key, raw (32 bytes), base64. */
  ephemeralPublicKey: string;
  /** The wrapper's ECDSA P-256 signature over {@link wrapHeaderBytes}, base64. */
  signature: string;
};

/** One member's share: the channel secret wrapped with AES-KW (40 bytes), base64. */
export type ChannelShare = { recipientId: string; wrappedKey: string };

/** A member to wrap for: their id and X25519 share public key (raw, base64). */
export type ShareRecipient = { id: string; sharePublicKey: string };

/**
 * A member to wrap for, with what vouches for their share key: their signature over it and the
 * signing key (SPKI, base64) the wrapper trusts as theirs.
 */
export type SignedShareRecipient = ShareRecipient & { signature: string; signingPublicKey: string };

function checkGeneration(generation: number): void {
  if (!Number.isInteger(generation) || generation < 0 || generation > 0xffffffff) {
    throw new CryptoError('malformed', 'generation must be a whole number from 0 to 2^32 - 1');
  }
}

async function hmac(key: CryptoKey, label: string, ...fields: (string | number)[]): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, utf8(JSON.stringify([label, ...fields]))));
}

async function importSecret(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', raw, hmacSha256, true, ['sign']);
}

/** A new epoch's secret, at generation 0. */
export async function newChannelSecret(conversationId: string, epochId: string): Promise<ChannelSecret> {
  const raw = randomBytes(SECRET_BYTES);
  try {
    return { conversationId, epochId, generation: 0, key: await importSecret(raw) };
  } finally {
    wipe(raw);
  }
}

/**
 * The secret at a later generation: S(g+1) = HMAC-SHA256(S(g), ["enclave/channel-join/v1",
 * conversationId, epochId, g+1]), applied once per join. HMAC is one-way, so a member who holds
 * only a later generation cannot compute an earlier one.
 *
 * @throws CryptoError('malformed') when `generation` is earlier than the secret's own.
 */
export async function advanceChannelSecret(secret: ChannelSecret, generation: number): Promise<ChannelSecret> {
  checkGeneration(generation);
  if (generation < secret.generation) throw new CryptoError('malformed', 'a channel secret cannot go back to an earlier generation');
  let key = secret.key;
  for (let g = secret.generation + 1; g <= generation; g++) {
    const raw = await hmac(key, 'enclave/channel-join/v1', secret.conversationId, secret.epochId, g);
    key = await importSecret(raw);
    wipe(raw);
  }
  return { ...secret, generation, key };
}

/**
 * One sender's chain key in one sender epoch of this generation: HMAC-SHA256(S(g),
 * ["enclave/channel-sender/v1", conversationId, epochId, g, senderId, senderEpochId]), imported as
 * the HKDF key that message encryption takes (packages/crypto/src/message.ts). Every member of the
 * generation can derive every sender's chain; authorship rests on each message's ECDSA signature.
 */
export async function senderChainKey(secret: ChannelSecret, senderId: string, senderEpochId: string): Promise<CryptoKey> {
  const raw = await hmac(
    secret.key,
    'enclave/channel-sender/v1',
    secret.conversationId,
    secret.epochId,
    secret.generation,
    senderId,
    senderEpochId,
  );
  try {
    return await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  } finally {
    wipe(raw);
  }
}

/** A member's X25519 share key: the private half, its raw public key (base64) and the member's signature over it. */
export type ShareIdentity = { privateKey: CryptoKey; sharePublicKey: string; signature: string };

/** The bytes a member's signature over their own share public key covers. */
function shareKeyBytes(sharePublicKey: string): Uint8Array<ArrayBuffer> {
  return utf8(JSON.stringify(['enclave/share-key/v1', sharePublicKey]));
}

/** PKCS8 of an X25519 private key: this fixed prefix, then the 32 bytes of the scalar (RFC 8410). */
const X25519_PKCS8_PREFIX = fromHex('302e020100300506032b656e04220420');

/**
 * The member's share key, derived from the PKCS8 of their signing key as sealed in their key
 * bundle: the scalar is HKDF-SHA256(pkcs8, salt empty, info "enclave/share-key/v1"), so every
 * account has one without the bundle changing, and the same one on every sign-in. The signature
 * binds it to the member's signing key, so a server cannot hand out a key of its own in its place.
 * Internal: used by account creation and the bundle opener.
 */
export async function deriveShareIdentity(signingPkcs8: Uint8Array<ArrayBuffer>, signKey: CryptoKey): Promise<ShareIdentity> {
  const base = await crypto.subtle.importKey('raw', signingPkcs8, 'HKDF', false, ['deriveBits']);
  const scalar = new Uint8Array(
    await crypto.subtle.deriveBits(
      { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info: utf8('enclave/share-key/v1') },
      base,
      SECRET_BYTES * 8,
    ),
  );
  const pkcs8 = concatBytes(X25519_PKCS8_PREFIX, scalar);
  try {
    const [privateKey, jwk] = await Promise.all([
      crypto.subtle.importKey('pkcs8', pkcs8, x25519, false, ['deriveKey']),
      crypto.subtle.importKey('pkcs8', pkcs8, x25519, true, ['deriveKey']).then((key) => crypto.subtle.exportKey('jwk', key)),
    ]);
    // JWK's `x` is the raw public key in base64url; the wire carries base64.
    const x = jwk.x ?? '';
    const sharePublicKey = x
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(x.length / 4) * 4, '=');
    const signature = toBase64(new Uint8Array(await crypto.subtle.sign(ecdsaSha256, signKey, shareKeyBytes(sharePublicKey))));
    return { privateKey, sharePublicKey, signature };
  } finally {
    wipe(scalar, pkcs8);
  }
}

/** Whether `signature` is the member's signature (under `verifyKey`, their signing key) over this share public key. */
export async function verifyShareKey(args: { sharePublicKey: string; signature: string; verifyKey: CryptoKey }): Promise<boolean> {
  return translateErrors('malformed', 'share key signature is not base64', async () =>
    crypto.subtle.verify(ecdsaSha256, args.verifyKey, fromBase64(args.signature), shareKeyBytes(args.sharePublicKey)),
  );
}

/** The bytes the header's signature covers: every field a server could swap. */
export function wrapHeaderBytes(header: Omit<ChannelWrapHeader, 'signature'>): Uint8Array<ArrayBuffer> {
  return utf8(
    JSON.stringify([
      'enclave/channel-wrap/v1',
      header.conversationId,
      header.epochId,
      header.generation,
      header.wrapperId,
      header.ephemeralPublicKey,
    ]),
  );
}

/**
 * The AES-KW key for one recipient: HKDF-SHA256 of the X25519 agreement, salt empty, info binding
 * the header and the recipient, so a share moved to another recipient, epoch or generation does
 * not open.
 */
async function keyEncryptionKey(
  privateKey: CryptoKey,
  publicKey: string,
  header: Omit<ChannelWrapHeader, 'signature'>,
  recipient: ShareRecipient,
  usage: 'wrapKey' | 'unwrapKey',
): Promise<CryptoKey> {
  const peer = await crypto.subtle.importKey('raw', fromBase64(publicKey), x25519, false, []);
  const agreed = await crypto.subtle.deriveKey({ name: 'X25519', public: peer } as EcdhKeyDeriveParams, privateKey, 'HKDF', false, [
    'deriveKey',
  ]);
  const info = utf8(
    JSON.stringify([
      'enclave/channel-share/v1',
      header.conversationId,
      header.epochId,
      header.generation,
      header.wrapperId,
      header.ephemeralPublicKey,
      recipient.id,
      recipient.sharePublicKey,
    ]),
  );
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(), info },
    agreed,
    { name: 'AES-KW', length: 256 },
    false,
    [usage],
  );
}

/**
 * Starts an upload of shares of `secret`: a fresh ephemeral X25519 key and the signed header. The
 * ephemeral private key is non-extractable and can be posted to Web Workers, which then wrap
 * slices of the members with {@link wrapShares}.
 */
export async function startWrap(args: {
  secret: ChannelSecret;
  wrapperId: string;
  signKey: CryptoKey;
}): Promise<{ header: ChannelWrapHeader; ephemeralPrivateKey: CryptoKey }> {
  const { secret, wrapperId, signKey } = args;
  checkGeneration(secret.generation);
  const pair = (await crypto.subtle.generateKey(x25519, false, ['deriveKey'])) as CryptoKeyPair;
  const ephemeralPublicKey = toBase64(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
  const unsigned = {
    conversationId: secret.conversationId,
    epochId: secret.epochId,
    generation: secret.generation,
    wrapperId,
    ephemeralPublicKey,
  };
  const signature = toBase64(new Uint8Array(await crypto.subtle.sign(ecdsaSha256, signKey, wrapHeaderBytes(unsigned))));
  return { header: { ...unsigned, signature }, ephemeralPrivateKey: pair.privateKey };
}

/**
 * Wraps the secret for each recipient under the upload started by {@link startWrap}: their share
 * key's signature checked under the signing key given with it, then one X25519 agreement, one HKDF
 * and one AES-KW wrap each. Checking here, beside the wrap, puts both off the page's thread when
 * Web Workers run this. `onProgress` is told the count done after each.
 *
 * @throws CryptoError('bad_signature') naming the recipient whose share key their signing key did not sign.
 * @throws CryptoError('malformed') when a recipient's share key or signing key does not import.
 */
export async function wrapShares(args: {
  header: ChannelWrapHeader;
  secret: ChannelSecret;
  ephemeralPrivateKey: CryptoKey;
  recipients: SignedShareRecipient[];
  onProgress?: (done: number) => void;
}): Promise<ChannelShare[]> {
  const { header, secret, ephemeralPrivateKey, recipients, onProgress } = args;
  if (header.epochId !== secret.epochId || header.generation !== secret.generation || header.conversationId !== secret.conversationId) {
    throw new CryptoError('malformed', 'the header is for another secret');
  }
  const shares: ChannelShare[] = [];
  for (const recipient of recipients) {
    const verifyKey = await translateErrors('malformed', 'a signing key does not import', () =>
      crypto.subtle.importKey('spki', fromBase64(recipient.signingPublicKey), ecdsaImport, false, ['verify']),
    );
    if (!(await verifyShareKey({ ...recipient, verifyKey }))) {
      throw new CryptoError('bad_signature', `the share key of ${recipient.id} is not signed by their signing key`);
    }
    const kek = await translateErrors('malformed', 'a share key does not import', () =>
      keyEncryptionKey(ephemeralPrivateKey, recipient.sharePublicKey, header, recipient, 'wrapKey'),
    );
    const wrapped = new Uint8Array(await crypto.subtle.wrapKey('raw', secret.key, kek, 'AES-KW'));
    shares.push({ recipientId: recipient.id, wrappedKey: toBase64(wrapped) });
    onProgress?.(shares.length);
  }
  return shares;
}

/**
 * Opens the caller's own share. The header's signature is checked first, with the wrapper's key,
 * then the AES-KW unwrap checks that the share was made under that header's ephemeral key.
 *
 * @param args.self - the caller's id and own share public key (derived locally, never the server's).
 * @throws CryptoError('bad_signature') when the wrapper did not sign this header.
 * @throws CryptoError('wrong_recipient') when the share does not open for this member.
 * @throws CryptoError('malformed') when the share is not 40 bytes of base64.
 */
export async function openChannelShare(args: {
  header: ChannelWrapHeader;
  wrappedKey: string;
  self: ShareRecipient;
  sharePrivateKey: CryptoKey;
  wrapperVerifyKey: CryptoKey;
}): Promise<ChannelSecret> {
  const { header, wrappedKey, self, sharePrivateKey, wrapperVerifyKey } = args;
  checkGeneration(header.generation);
  const valid = await translateErrors('bad_signature', 'wrap header signature does not verify', () =>
    crypto.subtle.verify(ecdsaSha256, wrapperVerifyKey, fromBase64(header.signature), wrapHeaderBytes(header)),
  );
  if (!valid) throw new CryptoError('bad_signature', 'wrap header signature does not verify');
  const wrapped = fromBase64(wrappedKey);
  if (wrapped.length !== WRAPPED_BYTES) throw new CryptoError('malformed', `a share is ${WRAPPED_BYTES} bytes`);
  const key = await translateErrors('wrong_recipient', 'share does not open with this key', async () => {
    const kek = await keyEncryptionKey(sharePrivateKey, header.ephemeralPublicKey, header, self, 'unwrapKey');
    return crypto.subtle.unwrapKey('raw', wrapped, kek, 'AES-KW', hmacSha256, true, ['sign']);
  });
  return { conversationId: header.conversationId, epochId: header.epochId, generation: header.generation, key };
}
