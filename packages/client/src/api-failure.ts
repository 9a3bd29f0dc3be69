/**
 * How the core recognises a refusal by the server without importing any network code: the api
 * functions it is given throw errors that carry the HTTP `status` and the server's error `code`
 * (the web app's `ApiError`, the server test client's reply error). They are read structurally.
 */
import { errorCodes } from '@enclave/protocol';

/** What the core reads of an error thrown by an api function it was given. */
export type ApiFailure = { status: number; code: string | null };

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

/** The server refused an epoch or a message made for an older member set (DESIGN.md section 4). */
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
