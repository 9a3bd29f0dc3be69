/**
 * Which public keys a member may publish (docs/security.md §3): an RSA-2048 encryption key with
 * e = 65537 and an ECDSA P-256 signing key, each as canonical SPKI — exactly what every client's
 * WebCrypto imports and what the wire limits were sized for (a share is one RSA-2048 ciphertext).
 * Registration refuses anything else; a stored key that fails this (an account from before the
 * check) makes its member "unusable", which lets senders leave them out of an epoch
 * (conversations/routes.ts).
 */
import { createPublicKey, diffieHellman, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { verifyShareKey } from '@enclave/crypto';
import type { ShareKey } from '@enclave/protocol';

export type PublicKeyField = 'encryptionPublicKey' | 'signingPublicKey';

const RSA_BITS = 2048;
const RSA_EXPONENT = 65537n;

function parseSpki(base64: string): KeyObject | null {
  try {
    return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

/**
 * Why this base64 SPKI is not an acceptable key for `field`, or null when it is. Canonical means
 * it re-encodes to the very text given (no compressed point, explicit curve parameters, trailing
 * bytes or loose base64), so that no client can read it otherwise than the server did.
 */
export function publicKeyRefusal(field: PublicKeyField, base64: string): string | null {
  const key = parseSpki(base64);
  if (!key) return 'must be a public key in SPKI form';
  const details = key.asymmetricKeyDetails ?? {};
  if (field === 'encryptionPublicKey') {
    if (key.asymmetricKeyType !== 'rsa' || details.modulusLength !== RSA_BITS || details.publicExponent !== RSA_EXPONENT) {
      return 'must be an RSA-2048 key with public exponent 65537';
    }
  } else if (key.asymmetricKeyType !== 'ec' || details.namedCurve !== 'prime256v1') {
    return 'must be an ECDSA P-256 key';
  }
  // Rebuilt from its numbers (a key exported as parsed keeps a compressed point), and compared as
  // text: padded standard base64 of the DER, as @enclave/crypto reads and writes it.
  const canonical = createPublicKey({ key: key.export({ format: 'jwk' }), format: 'jwk' }).export({ type: 'spki', format: 'der' });
  if (canonical.toString('base64') !== base64) {
    return 'must be canonical SPKI in canonical base64 (uncompressed point, named curve, nothing after the key)';
  }
  return null;
}

/** The first refusal of a member's two public keys, as "field: why", or null when both are acceptable. */
export function publicIdentityRefusal(keys: Record<PublicKeyField, string>): string | null {
  for (const field of ['encryptionPublicKey', 'signingPublicKey'] as const) {
    const why = publicKeyRefusal(field, keys[field]);
    if (why) return `${field}: ${why}`;
  }
  return null;
}

/** A key pair of the server's own, only to check that a member's share key agrees to something. */
const probe = generateKeyPairSync('x25519');

/**
 * Why a member's share key (packages/crypto/src/channel-keys.ts) is not acceptable, or null: it
 * must be an X25519 key of full order (a low-order point agrees to zero, which would make every
 * wrap for the whole channel fail) and carry the member's own signature under their signing key.
 */
export async function shareKeyRefusal(signingPublicKey: string, shareKey: ShareKey): Promise<string | null> {
  try {
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(shareKey.sharePublicKey, 'base64').toString('base64url') },
      format: 'jwk',
    });
    diffieHellman({ privateKey: probe.privateKey, publicKey });
  } catch {
    return 'sharePublicKey: must be an X25519 public key of full order';
  }
  const verifyKey = await crypto.subtle.importKey(
    'spki',
    Buffer.from(signingPublicKey, 'base64'),
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  const signed = await verifyShareKey({ ...shareKey, verifyKey }).catch(() => false);
  return signed ? null : "signature: must be the member's signature over their share key";
}
