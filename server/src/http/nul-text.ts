/**
 * PostgreSQL stores no U+0000 in `text` or `jsonb`: a string carrying one fails the query, which
 * answered 500 (found by the property tests: `GET /api/admin/export-keys?purchaseId=a%00b`; a ban
 * reason or a key's purchase ID did the same). No field of the protocol has a use for it, so every
 * route of the table refuses it in its body and query before validation, as a client error.
 */
import { errorCodes } from '@enclave/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';

/** The path of the first string (or key) in `value` that holds U+0000, if any. */
export function nulPath(value: unknown, at: string[] = []): string[] | null {
  if (typeof value === 'string') return value.includes('\u0000') ? at : null;
  // Raw bytes (an attachment's ciphertext) are not text, and would be walked byte by byte.
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return null;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return [...at, key];
    const found = nulPath(item, [...at, key]);
    if (found) return found;
  }
  return null;
}

/** A `preValidation` hook: 400 "field: must not contain the NUL character". */
export async function refuseNulText(req: FastifyRequest): Promise<void> {
  const found = nulPath(req.query, ['query']) ?? nulPath(req.body, ['body']);
  if (found) {
    const field = found.slice(1).join('.') || found[0];
    throw new HttpError(400, errorCodes.invalidRequest, `${field}: must not contain the NUL character`);
  }
}
