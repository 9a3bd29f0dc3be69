/** The toasts of the key administration screen (specification section 8), in one place. */
import type { ToastInput } from '../components/ui/toast-store';

const bad = (title: string, description: string): ToastInput => ({ title, description, tone: 'destructive' });
const good = (title: string, description: string): ToastInput => ({ title, description, tone: 'success' });

/** "Failed to generate access keys" plus the server's own reason when it gave one. */
function withReason(base: string, serverText: string | null): string {
  return serverText ? `${base}: ${serverText}` : base;
}

export const adminToasts = {
  accessDenied: (serverText: string | null) => bad('Access Denied', serverText ?? 'Invalid creator credentials'),
  authenticationError: (serverText: string | null) =>
    bad('Authentication Error', serverText ?? 'Could not check the master key. Please try again.'),
  creatorAccess: good('Creator Access Granted', 'Key management unlocked for this tab.'),
  generated: (count: number) => good('Keys Generated Successfully', `${count} ${count === 1 ? 'key' : 'keys'} generated`),
  generationFailed: (serverText: string | null) => bad('Generation Failed', withReason('Failed to generate access keys', serverText)),
  copied: good('Copied to clipboard', 'The access key is on the clipboard.'),
  copyFailed: bad('Copy Failed', 'Select the key and copy it by hand.'),
  revoked: (count: number) =>
    good(count === 1 ? 'Key Revoked' : 'Bulk Revocation Complete', `${count} ${count === 1 ? 'key' : 'keys'} revoked`),
  revocationFailed: (serverText: string | null) => bad('Revocation Failed', serverText ?? 'Failed to revoke access keys'),
  exported: (count: number, filename: string) =>
    good('Export Complete', `${count} ${count === 1 ? 'key' : 'keys'} saved to ${filename}`),
  exportFailed: (serverText: string | null) => bad('Export Failed', serverText ?? 'Failed to export access keys'),
  invalidForm: (message: string) => bad('Invalid Input', message),
} as const;
