/**
 * A failed call. `message` follows the specification's generic format (docs/spec.md §8:
 * "status: body", or the status text when the body is empty); `code` and `serverMessage` come
 * from the server's `{error, code}` body when it sent one, so screens can react to the code and
 * show the server's own wording.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: string | null;
  readonly serverMessage: string | null;
  /** The wait the server asked for (`Retry-After`, a busy server's 503), read by the client core's resends. */
  readonly retryAfterMs: number | null;

  constructor(
    status: number,
    message: string,
    code: string | null = null,
    serverMessage: string | null = null,
    retryAfterMs: number | null = null,
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.serverMessage = serverMessage;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Status used when no HTTP answer arrived at all (offline, connection refused). */
export const NETWORK_FAILURE_STATUS = 0;

/** True when `error` is an {@link ApiError} with this status and, if given, this code. */
export function isApiError(error: unknown, status?: number, code?: string): error is ApiError {
  if (!(error instanceof ApiError)) return false;
  if (status !== undefined && error.status !== status) return false;
  if (code !== undefined && error.code !== code) return false;
  return true;
}
