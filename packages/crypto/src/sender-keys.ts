import { CryptoError, translateErrors } from './errors';
import { fromBase64, toBase64, utf8 } from './encoding';
import { randomBytes, wipe } from './bytes';
import { ecdsaSha256, rsaOaep } from './algorithms';
import { importEncryptKey } from './identity';

const CHAIN_KEY_BYTES = 32;
const SHARE_CONTEXT = 'enclave/share/v1';

/**
 * One sender's key epoch in one conversation (docs/security.md §4). Readers cache it per
 * `epochId`; it can be stored in IndexedDB as is, since the chain key is a non-extractable
 * CryptoKey.
 */
export type Epoch = {
  epochId: string;
  conversationId: string;
  senderId: string;
  /** The member set this epoch was wrapped for; the server refuses messages of older epochs. */
  membershipVersion: number;
  /** HKDF base key (usage `deriveKey`), non-extractable. */
  chainKey: CryptoKey;
};

/** One recipient's share of a new epoch, as uploaded to the server. */
export type EpochShareUpload = { recipientId: string; wrappedKey: string; signature: string };

/** The caller's own share of an epoch, as the server returns it. */
export type EpochShareInput = {
  epochId: string;
  conversationId: string;
  senderId: string;
  membershipVersion: number;
  wrappedKey: string;
  signature: string;
};

/**
 * The bytes a share's signature covers. Every field a server could swap is bound here, so a
 * share cannot be replayed into another conversation, epoch, member set or recipient.
 */
function shareSigningBytes(share: Omit<EpochShareInput, 'signature'>, recipientId: string): Uint8Array<ArrayBuffer> {
  return utf8(
    JSON.stringify([
      SHARE_CONTEXT,
      share.conversationId,
      share.epochId,
      share.senderId,
      share.membershipVersion,
      recipientId,
      share.wrappedKey,
    ]),
  );
}

/**
 * Import 32 raw bytes as an epoch's chain key: non-extractable, `deriveKey` only. Exported so
 * tests can build an epoch from a known chain key; not re-exported from the index.
 *
 * @throws CryptoError('malformed') unless `raw` is 32 bytes.
 */
export async function importChainKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  if (raw.length !== CHAIN_KEY_BYTES) throw new CryptoError('malformed', 'chain key must be 32 bytes');
  return crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
}

/**
 * Start a new epoch: a random chain key wrapped with RSA-OAEP for every recipient (the sender
 * included, so it can read its own messages after a reload), each share signed by the sender.
 * The cost is one RSA encryption per member, paid once per rotation rather than per message.
 *
 * @throws CryptoError('malformed') when a recipient's key does not import or the membership
 *   version is not a non-negative integer.
 * @example
 * ```ts
 * const { epoch, shares } = await createEpoch({ conversationId, senderId: me.id, membershipVersion, recipients: members, signKey });
 * await api.createEpoch({ epochId: epoch.epochId, receiverId, membershipVersion, shares });
 * ```
 */
export async function createEpoch(args: {
  conversationId: string;
  senderId: string;
  membershipVersion: number;
  recipients: { id: string; encryptionPublicKey: string }[];
  signKey: CryptoKey;
}): Promise<{ epoch: Epoch; shares: EpochShareUpload[] }> {
  const { conversationId, senderId, membershipVersion, signKey } = args;
  if (!Number.isInteger(membershipVersion) || membershipVersion < 0) {
    throw new CryptoError('malformed', 'membership version must be a non-negative integer');
  }
  const epochId = crypto.randomUUID();
  const raw = randomBytes(CHAIN_KEY_BYTES);
  try {
    const shares = await Promise.all(
      args.recipients.map(async (recipient): Promise<EpochShareUpload> => {
        const encryptKey = await importEncryptKey(recipient.encryptionPublicKey);
        const wrappedKey = toBase64(new Uint8Array(await crypto.subtle.encrypt(rsaOaep, encryptKey, raw)));
        const signed = shareSigningBytes({ epochId, conversationId, senderId, membershipVersion, wrappedKey }, recipient.id);
        const signature = toBase64(new Uint8Array(await crypto.subtle.sign(ecdsaSha256, signKey, signed)));
        return { recipientId: recipient.id, wrappedKey, signature };
      }),
    );
    const chainKey = await importChainKey(raw);
    return { epoch: { epochId, conversationId, senderId, membershipVersion, chainKey }, shares };
  } finally {
    wipe(raw);
  }
}

/**
 * Unwrap the caller's share of another sender's (or its own) epoch. The signature is checked
 * before the RSA decryption, so a share the sender did not make is never decrypted at all.
 *
 * @param args.recipientId - the caller's own id; the signature binds it, so a share wrapped for
 *   someone else fails as `bad_signature` when opened under the caller's id.
 * @throws CryptoError('bad_signature') when the sender did not sign this share for this recipient.
 * @throws CryptoError('wrong_recipient') when `decryptKey` does not open the wrapped key.
 * @throws CryptoError('malformed') when a field is not base64 or the chain key is not 32 bytes.
 * @example
 * ```ts
 * const epoch = await openEpochShare({ share, recipientId: me.id, decryptKey, senderVerifyKey });
 * ```
 */
export async function openEpochShare(args: {
  share: EpochShareInput;
  recipientId: string;
  decryptKey: CryptoKey;
  senderVerifyKey: CryptoKey;
}): Promise<Epoch> {
  const { share, recipientId, decryptKey, senderVerifyKey } = args;
  const signature = fromBase64(share.signature);
  const valid = await translateErrors('bad_signature', 'share signature does not verify', () =>
    crypto.subtle.verify(ecdsaSha256, senderVerifyKey, signature, shareSigningBytes(share, recipientId)),
  );
  if (!valid) throw new CryptoError('bad_signature', 'share signature does not verify');
  const wrapped = fromBase64(share.wrappedKey);
  const raw = new Uint8Array(
    await translateErrors('wrong_recipient', 'share does not open with this key', () =>
      crypto.subtle.decrypt(rsaOaep, decryptKey, wrapped),
    ),
  );
  try {
    const chainKey = await importChainKey(raw);
    return {
      epochId: share.epochId,
      conversationId: share.conversationId,
      senderId: share.senderId,
      membershipVersion: share.membershipVersion,
      chainKey,
    };
  } finally {
    wipe(raw);
  }
}
