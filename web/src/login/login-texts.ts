/** The specification's texts for the login screen's toasts (docs/spec.md §5 and §8), in one place. */
import { errorTexts } from '@enclave/protocol';
import { ownKeysMismatchToast } from '../auth/own-identity';
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';

/** Why a key does nothing in emergency mode: under the key on the login screen, and on /validate. */
export const registrationClosedExplanation = `${errorTexts.registrationClosed}. Nothing was done with your key: try again once the network is back to normal.`;

export const loginToasts = {
  rateLimited: bad('Security Violation', 'Too many attempts detected. Access temporarily blocked.'),
  tokenTooShort: bad('Invalid Access Token', 'Access token must be at least 64 characters long'),
  tokenIntegrity: bad('Security Alert', 'Token format validation failed. Suspicious activity detected.'),
  authFailed: bad('Authentication Failed', errorTexts.loginFailed),
  ownKeysMismatch: ownKeysMismatchToast,
  wiped: bad('Account Compromised', errorTexts.wiped),
  locked: bad('Account Locked', errorTexts.locked),
  ipBlocked: bad('Access Blocked', errorTexts.ipBlocked),
  banned: (serverText: string | null) => bad('Account Banned', serverText ?? errorTexts.banned),
  keyTooShort: bad('Invalid Key', 'Please enter a valid 64-character access key'),
  keyValid: good('Valid Access Key', 'Key validated! You can now create your username.'),
  registrationClosed: bad('Registration Closed', errorTexts.registrationClosed),
  keyInvalid: (reason: string | null) => bad('Invalid Access Key', reason || 'This access key cannot be used'),
  validationFailed: bad('Validation Failed', 'Failed to validate access key. Please try again.'),
  usernameRequired: bad('Username Required', 'Please enter a username'),
  registered: good('Keys Generated Successfully', "Save your access token securely. You'll need it to access your messages."),
  registrationFailed: (serverText: string | null) =>
    bad('Registration Failed', serverText || 'Username may already exist or an error occurred'),
  copied: good('Copied to clipboard', 'Your access token is on the clipboard.'),
  copyFailed: bad('Copy Failed', 'Select the token and copy it by hand.'),
} as const;
