/**
 * Which public keys a member may publish (docs/security.md §3): an RSA-2048 encryption key with
 * e = 65537 and an ECDSA P-256 signing key, each as canonical SPKI — exactly what every client's
 * WebCrypto imports and what the wire limits were sized for (a share is one RSA-2048 ciphertext).
 * Registration refuses anything else; a stored key that fails this (an account from before the
 * check) makes its member "unusable", which lets senders leave them out of an epoch
 * (conversations/routes.ts).
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

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
