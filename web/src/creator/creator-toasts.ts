/** The specification's texts for the creator console's toasts (docs/spec.md §8), in one place. */
import { errorTexts } from '@enclave/protocol';
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';
import { plural } from '../lib/format';
import { isApiError, NETWORK_FAILURE_STATUS } from '../net/api-error';

/** True when no HTTP answer arrived at all. */
export function isNetworkFailure(error: unknown): boolean {
  return isApiError(error, NETWORK_FAILURE_STATUS);
}

/** The server's own words for a refusal, else `fallback`. */
export function serverText(error: unknown, fallback: string): string {
  return (isApiError(error) && error.serverMessage) || fallback;
}

export const creatorToasts = {
  accessDenied: bad('Access Denied', 'Invalid creator credentials'),
  malformedKey: bad('Access Denied', 'A master key is 128 hexadecimal characters (0-9, a-f).'),
  rateLimited: (error: unknown) => bad('Access Blocked', serverText(error, errorTexts.tooManyAttempts)),
  authError: bad('Authentication Error', 'Could not reach the server. Check the connection and try again.'),
  granted: good('Creator Access Granted', 'Welcome back. The master key is held in this tab only.'),
  locked: good('Console Locked', 'The master key was forgotten by this tab.'),

  userBanned: (username: string) => good('User Banned', `${username} has been banned from the network.`),
  userUnbanned: (username: string) => good('User Unbanned', `${username} can sign in again.`),
  banFailed: (error: unknown) => bad('Ban Failed', serverText(error, 'Failed to connect to server')),
  unbanFailed: (error: unknown) => bad('Unban Failed', serverText(error, 'Failed to connect to server')),
  userUnlocked: (username: string) => good('User Unlocked', `${username} can sign in again.`),
  unlockFailed: (error: unknown) => bad('Unlock Failed', serverText(error, 'Failed to connect to server')),
  bulkUnbanned: (n: number) => good('Users Unbanned', `${plural(n, 'member')} can sign in again.`),
  roleChanged: (username: string, role: 'member' | 'admin') =>
    good('Role Updated', role === 'admin' ? `${username} is now an admin.` : `${username} is now a member.`),
  creatorAccount: (username: string, marked: boolean) =>
    good(
      marked ? 'Creator Account Marked' : 'Creator Account Unmarked',
      marked ? `${username} is spared by an emergency shutdown.` : `${username} is treated as any other member.`,
    ),
  actionFailed: (error: unknown) => bad('Action Failed', serverText(error, 'Failed to connect to server')),

  shutdown: (banned: number) =>
    bad('Emergency Shutdown Activated', `${plural(banned, 'member')} banned and disconnected. The network is in emergency mode.`),
  shutdownFailed: (error: unknown) => bad('Shutdown Failed', serverText(error, 'Failed to connect to server')),
  emergencyLifted: good('Emergency Mode Lifted', 'Registration is open again. Bans stay until you lift them.'),
  liftFailed: (error: unknown) => bad('Lift Failed', serverText(error, 'Failed to connect to server')),

  keysLoadFailed: (error: unknown) =>
    isNetworkFailure(error)
      ? bad('Error Loading Keys', 'Failed to connect to server')
      : bad('Failed to Load Keys', serverText(error, 'The key database could not be read.')),
  keysGenerated: (n: number) => good('Keys Generated Successfully', `${plural(n, 'access key')} generated.`),
  generationFailed: (error: unknown) =>
    isNetworkFailure(error)
      ? bad('Generation Error', 'Failed to connect to server')
      : bad('Generation Failed', serverText(error, 'Failed to generate access keys')),
  generationInvalid: (message: string) => bad('Generation Failed', message),
  keysCopied: (n: number) => good('Copied to clipboard', `${n} keys, one a line.`),
  keysCopyFailed: bad('Copy Failed', 'Select the keys and copy them by hand.'),

  revocationLoadFailed: bad('Error', 'Failed to load access keys'),
  keyRevoked: (revoked: number) =>
    revoked === 1
      ? good('Key Revoked', 'The key can no longer be redeemed.')
      : bad('Revocation Failed', 'The key was already used, revoked or expired.'),
  bulkRevoked: (revoked: number, asked: number) =>
    good(
      'Bulk Revocation Complete',
      revoked === asked ? `${plural(revoked, 'key')} revoked.` : `${revoked} of ${asked} keys revoked; the others were no longer active.`,
    ),
  revocationFailed: (error: unknown) => bad('Revocation Failed', serverText(error, 'Failed to connect to server')),
} as const;
