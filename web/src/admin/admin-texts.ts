/** The toasts of the key administration screen (docs/spec.md §8), in one place. */
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';
import { plural } from '../lib/format';

/** "Failed to generate access keys" plus the server's own reason when it gave one. */
function withReason(base: string, serverText: string | null): string {
  return serverText ? `${base}: ${serverText}` : base;
}

export const adminToasts = {
  accessDenied: (serverText: string | null) => bad('Access Denied', serverText ?? 'Invalid creator credentials'),
  authenticationError: (serverText: string | null) =>
    bad('Authentication Error', serverText ?? 'Could not check the master key. Please try again.'),
  creatorAccess: good('Creator Access Granted', 'Key management unlocked for this tab.'),
  generated: (count: number) => good('Keys Generated Successfully', `${plural(count, 'key')} generated`),
  generationFailed: (serverText: string | null) => bad('Generation Failed', withReason('Failed to generate access keys', serverText)),
  copied: good('Copied to clipboard', 'The access key is on the clipboard.'),
  copyFailed: bad('Copy Failed', 'Select the key and copy it by hand.'),
  revoked: (count: number) => good(count === 1 ? 'Key Revoked' : 'Bulk Revocation Complete', `${plural(count, 'key')} revoked`),
  revocationFailed: (serverText: string | null) => bad('Revocation Failed', serverText ?? 'Failed to revoke access keys'),
  exported: (count: number, filename: string) => good('Export Complete', `${plural(count, 'key')} saved to ${filename}`),
  exportFailed: (serverText: string | null) => bad('Export Failed', serverText ?? 'Failed to export access keys'),
  invalidForm: (message: string) => bad('Invalid Input', message),
} as const;
