import { CryptoError } from '@enclave/crypto';
import { errorCodes } from '@enclave/protocol';
import { ClientRateLimitError } from '../auth/client-rate-limit';
import { OwnKeysMismatchError } from '../auth/own-identity';
import type { ToastInput } from '../components/ui/toast-store';
import { isApiError } from '../net/api-error';
import { loginToasts } from './login-texts';

/** The toast for a failed sign-in. */
export function loginFailureToast(error: unknown): ToastInput {
  if (error instanceof ClientRateLimitError || isApiError(error, 429)) return loginToasts.rateLimited;
  if (error instanceof OwnKeysMismatchError) return loginToasts.ownKeysMismatch;
  if (isApiError(error, 403, errorCodes.wiped)) return loginToasts.wiped;
  if (isApiError(error, 403, errorCodes.banned)) return loginToasts.banned(error.serverMessage);
  if (isApiError(error, 403, errorCodes.locked)) return loginToasts.locked;
  if (isApiError(error, 403, errorCodes.ipBlocked)) return loginToasts.ipBlocked;
  if (isApiError(error, 403)) return loginToasts.wiped;
  if (!isApiError(error) && !(error instanceof CryptoError)) console.error('login failed', error);
  return loginToasts.authFailed;
}

/** The toast for a failed registration: the server's own text when it sent one. */
export function registrationFailureToast(error: unknown): ToastInput {
  if (isApiError(error)) return loginToasts.registrationFailed(error.serverMessage);
  console.error('registration failed', error);
  return loginToasts.registrationFailed(null);
}
