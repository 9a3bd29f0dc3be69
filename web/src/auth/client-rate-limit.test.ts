import { errorCodes, errorTexts, limits } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { ApiError, NETWORK_FAILURE_STATUS } from '../net/api-error';
import {
  browserId,
  BROWSER_ID_STORAGE_KEY,
  ClientRateLimitError,
  isWrongToken,
  limitedLogin,
  loginAllowed,
  UI_LOGIN_ACTION,
} from './client-rate-limit';
import { OwnKeysMismatchError } from './own-identity';

function memoryStorage() {
  const data = new Map<string, string>();
  return { data, getItem: (k: string) => data.get(k) ?? null, setItem: (k: string, v: string) => void data.set(k, v) };
}

const wrongToken = () => Promise.reject(new ApiError(401, '401: Invalid access token', errorCodes.loginFailed, errorTexts.loginFailed));

/** Failures that say nothing about the token: offline, the server's own trouble or limits, the account's state, keys that do not match. */
const notGuesses = [
  new ApiError(NETWORK_FAILURE_STATUS, 'Network error: Failed to fetch', 'network'),
  new ApiError(500, '500: Internal Server Error'),
  new ApiError(503, '503: Service Unavailable', errorCodes.unavailable),
  new ApiError(429, '429: Too many attempts', errorCodes.rateLimited),
  new ApiError(403, '403: wiped', errorCodes.wiped),
  new ApiError(403, '403: banned', errorCodes.banned),
  new ApiError(401, '401: Not signed in', errorCodes.unauthorized),
  new OwnKeysMismatchError(),
  new ClientRateLimitError(),
  new Error('something else'),
];

describe('the client-side login limit (docs/spec.md §5)', () => {
  it('lets the right token in after a few wrong ones: only failures count', async () => {
    const storage = memoryStorage();
    for (let i = 0; i < limits.loginAttempts - 1; i++) await expect(limitedLogin('auth_login', wrongToken, storage)).rejects.toThrow('401');
    await expect(limitedLogin('auth_login', async () => 'signed in', storage)).resolves.toBe('signed in');
    // Successes are never counted: signing in again and again stays allowed.
    for (let i = 0; i < 10; i++) await expect(limitedLogin('auth_login', async () => 'signed in', storage)).resolves.toBe('signed in');
  });

  it('refuses before anything is sent once five sign-ins failed within the minute', async () => {
    const storage = memoryStorage();
    for (let i = 0; i < limits.loginAttempts; i++) await expect(limitedLogin('auth_login', wrongToken, storage)).rejects.toThrow('401');
    let sent = false;
    const attempt = async () => {
      sent = true;
      return 'signed in';
    };
    await expect(limitedLogin('auth_login', attempt, storage)).rejects.toBeInstanceOf(ClientRateLimitError);
    expect(sent).toBe(false);
    // The UI's own key is counted apart.
    expect(loginAllowed(UI_LOGIN_ACTION, storage)).toBe(true);
  });
});

describe('what counts as a failed sign-in', () => {
  it("is the server's 401 login_failed only", () => {
    expect(isWrongToken(new ApiError(401, '401: Invalid access token', errorCodes.loginFailed))).toBe(true);
    for (const error of notGuesses) expect(isWrongToken(error)).toBe(false);
  });

  it('never refuses the right token after errors that are not wrong tokens (offline, 5xx, 429, 403...)', async () => {
    const storage = memoryStorage();
    for (let round = 0; round < 2; round++) {
      for (const error of notGuesses) await expect(limitedLogin('auth_login', () => Promise.reject(error), storage)).rejects.toBe(error);
    }
    expect(loginAllowed('auth_login', storage)).toBe(true);
    await expect(limitedLogin('auth_login', async () => 'signed in', storage)).resolves.toBe('signed in');
  });
});

describe('browserId', () => {
  it('makes a random 32-hex id once and keeps it', () => {
    const storage = memoryStorage();
    const id = browserId(storage);
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(browserId(storage)).toBe(id);
    expect(browserId(memoryStorage())).not.toBe(id);
  });

  it('replaces a kept value that is not an id, and gives none when storage refuses', () => {
    const storage = memoryStorage();
    storage.setItem(BROWSER_ID_STORAGE_KEY, 'not an id');
    expect(browserId(storage)).toMatch(/^[0-9a-f]{32}$/);
    const refusing = {
      getItem: () => {
        throw new Error('SecurityError');
      },
      setItem: () => undefined,
    };
    expect(browserId(refusing)).toBeUndefined();
  });
});
