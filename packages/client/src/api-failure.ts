/**
 * How the core recognises a refusal by the server without importing any network code: the api
 * functions it is given throw errors that carry the HTTP `status` and the server's error `code`
 * (the web app's `ApiError`, the server test client's reply error). They are read structurally.
 */
import { errorCodes } from '@enclave/protocol';

/**
 * What the core reads of an error thrown by an api function it was given. `retryAfterMs`: the
 * wait the server asked for (`Retry-After`), when it asked.
 */
export type ApiFailure = { status: number; code: string | null; retryAfterMs?: number | null };

/** The longest `Retry-After` honoured: a server (or a proxy) asking for more is not waited on longer. */
export const MAX_RETRY_AFTER_MS = 30_000;

/**
 * A `Retry-After` header in milliseconds (it gives seconds or an HTTP date), or null when absent or
 * unreadable.
 *
 * @example
 * ```ts
 * retryAfterMs('2'); // 2000
 * ```
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  if (/^\s*\d+\s*$/.test(header)) return Number(header) * 1000;
  // An HTTP date ends in GMT (RFC 9110 §5.6.7); Date.parse alone would read "-1" as a year.
  if (!/GMT\s*$/.test(header)) return null;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The wait `error` asks for before trying again, within MAX_RETRY_AFTER_MS; 0 when it asks none. */
export function requestedWaitMs(error: unknown): number {
  if (typeof error !== 'object' || error === null || !('retryAfterMs' in error)) return 0;
  const ms = error.retryAfterMs;
  return typeof ms === 'number' && ms > 0 ? Math.min(ms, MAX_RETRY_AFTER_MS) : 0;
}

/**
 * True when `error` carries this HTTP status and, if given, this error code.
 *
 * @example
 * ```ts
 * isApiFailure(new ApiError(409, '409: …', 'membership_changed'), 409, 'membership_changed'); // true
 * ```
 */
export function isApiFailure(error: unknown, status: number, code?: string): error is ApiFailure {
  if (typeof error !== 'object' || error === null) return false;
  if (!('status' in error) || error.status !== status) return false;
  if (code === undefined) return true;
  return 'code' in error && error.code === code;
}

/** The server refused an epoch or a message made for an older member set (docs/security.md §4). */
export function isMembershipChanged(error: unknown): boolean {
  return isApiFailure(error, 409, errorCodes.membershipChanged);
}

/**
 * A failure after which the server may or may not have done what was asked: no answer at all
 * (status 0, the web app's network failure) or a server error (5xx). A request that is
 * idempotent may be sent again as it was.
 */
export function isTransientFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !('status' in error)) return false;
  const { status } = error;
  return typeof status === 'number' && (status === 0 || status >= 500);
}
