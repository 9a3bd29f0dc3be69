import { toHex } from '@enclave/crypto';
import { browserIdSchema, errorCodes, limits } from '@enclave/protocol';
import { attemptAllowed, recordFailure, type RateLimitStorage } from '../lib/rate-limit';
import { isApiError } from '../net/api-error';

/** Action keys of the specification's login rate limit (docs/spec.md §5); the two are counted separately. */
export const UI_LOGIN_ACTION = 'ui_login';
export const AUTH_LOGIN_ACTION = 'auth_login';

/** Thrown when the client-side courtesy limit refuses an attempt before anything is sent. */
export class ClientRateLimitError extends Error {
  override readonly name = 'ClientRateLimitError';
  constructor() {
    super('Too many attempts. Access blocked for security.');
  }
}

const loginLimit = (storage?: RateLimitStorage) => ({ max: limits.loginAttempts, windowMs: limits.loginWindowMs, storage });

/** False once 5 sign-ins of `action` have failed within 60 s; only wrong tokens count, never a success. */
export function loginAllowed(action: string, storage?: RateLimitStorage): boolean {
  return attemptAllowed(action, loginLimit(storage));
}

export function recordLoginFailure(action: string, storage?: RateLimitStorage): void {
  recordFailure(action, loginLimit(storage));
}

/**
 * Whether a failed sign-in was a wrong token: only the server's 401 `login_failed` says so. Being
 * offline, a 5xx, a 429, a wiped or banned account or keys that do not match are not guesses, and
 * counting them would refuse the right token (and call each click a tamper detection) after five.
 */
export function isWrongToken(error: unknown): boolean {
  return isApiError(error, 401, errorCodes.loginFailed);
}

/**
 * Runs one sign-in under the limit of `action`: refused with {@link ClientRateLimitError} before
 * `attempt` runs once the limit is reached; a wrong token ({@link isWrongToken}) counts as a failure.
 */
export async function limitedLogin<T>(action: string, attempt: () => Promise<T>, storage?: RateLimitStorage): Promise<T> {
  if (!loginAllowed(action, storage)) throw new ClientRateLimitError();
  try {
    return await attempt();
  } catch (error) {
    if (isWrongToken(error)) recordLoginFailure(action, storage);
    throw error;
  }
}

export const BROWSER_ID_STORAGE_KEY = 'enclave.browserId';

/**
 * This browser's random id, made on first use and kept in localStorage: the server counts failed
 * sign-ins per browser with it, so that other browsers behind the same address are not held back
 * (docs/security.md §9). Not a secret. Undefined when storage refuses (then counted per address).
 */
export function browserId(storage: Pick<Storage, 'getItem' | 'setItem'> = globalThis.localStorage): string | undefined {
  try {
    const kept = storage.getItem(BROWSER_ID_STORAGE_KEY);
    if (kept !== null && browserIdSchema.safeParse(kept).success) return kept;
    const made = toHex(crypto.getRandomValues(new Uint8Array(16)));
    storage.setItem(BROWSER_ID_STORAGE_KEY, made);
    return made;
  } catch {
    return undefined;
  }
}
