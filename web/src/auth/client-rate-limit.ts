import { limits } from '@enclave/protocol';
import { recordAttempt } from '../lib/rate-limit';

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

/** Records a login attempt; false when the limit of 5 per 60 s is reached. */
export function allowLoginAttempt(action: string): boolean {
  return recordAttempt(action, { max: limits.loginAttempts, windowMs: limits.loginWindowMs });
}
