import { CryptoError } from './errors';
import { fromBase64, toBase64 } from './encoding';
import { IV_BYTES } from './algorithms';

const TAG_BYTES = 16;

/**
 * 1: the plaintext is a text message; 2: it is a structured message body (an attachment and its
 * caption, parsed by @enclave/protocol). Internal: not re-exported from the index.
 */
export type EnvelopeVersion = 1 | 2;

/** A message envelope's decoded fields. Internal: not re-exported from the index. */
export type Envelope = { v: EnvelopeVersion; iv: Uint8Array<ArrayBuffer>; ct: Uint8Array<ArrayBuffer>; sig: Uint8Array<ArrayBuffer> };

/**
 * The `encryptedContent` string. Key order is fixed (v, iv, ct, sig) because the server parses
 * it with a strict schema (`messageEnvelopeSchema` in @enclave/protocol).
 */
export function serializeEnvelope(e: Envelope): string {
  return JSON.stringify({ v: e.v, iv: toBase64(e.iv), ct: toBase64(e.ct), sig: toBase64(e.sig) });
}

/**
 * Parse `encryptedContent` as strictly as the server does: exactly these four keys, version 1 or 2,
 * canonical base64, a 12-byte IV and a ciphertext at least one GCM tag long.
 *
 * @throws CryptoError('malformed')
 */
export function parseEnvelope(encryptedContent: string): Envelope {
  let parsed: unknown;
  try {
    parsed = JSON.parse(encryptedContent);
  } catch {
    throw new CryptoError('malformed', 'envelope is not JSON');
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    Array.isArray(parsed) ||
    Object.keys(parsed).length !== 4 ||
    !('v' in parsed) ||
    (parsed.v !== 1 && parsed.v !== 2) ||
    !('iv' in parsed) ||
    typeof parsed.iv !== 'string' ||
    !('ct' in parsed) ||
    typeof parsed.ct !== 'string' ||
    !('sig' in parsed) ||
    typeof parsed.sig !== 'string'
  ) {
    throw new CryptoError('malformed', 'envelope has an unknown shape');
  }
  const envelope: Envelope = {
    v: parsed.v === 2 ? 2 : 1,
    iv: fromBase64(parsed.iv),
    ct: fromBase64(parsed.ct),
    sig: fromBase64(parsed.sig),
  };
  if (envelope.iv.length !== IV_BYTES) throw new CryptoError('malformed', 'iv must be 12 bytes');
  if (envelope.ct.length < TAG_BYTES) throw new CryptoError('malformed', 'ciphertext shorter than its tag');
  return envelope;
}
