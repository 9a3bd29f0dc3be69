/** Moderation toasts of the chat screen (docs/spec.md §8). */
import type { ToastInput } from '../components/ui/toast-store';

export const DEFAULT_BAN_REASON = 'Admin action';

/** A DM with a banned member: the server's own refusal (server/src/access/rules.ts), shown at the composer. */
export const BANNED_PEER_TEXT = 'This member is banned';

export const moderationToasts = {
  banned: { title: 'User Banned', description: 'User has been banned from the network', tone: 'success' },
  banFailed: (serverText: string | null): ToastInput => ({
    title: 'Ban Failed',
    description: serverText ?? 'Failed to ban the user',
    tone: 'destructive',
  }),
  unbanned: { title: 'User Unbanned', description: 'User can access the network again', tone: 'success' },
  unbanFailed: (serverText: string | null): ToastInput => ({
    title: 'Unban Failed',
    description: serverText ?? 'Failed to unban the user',
    tone: 'destructive',
  }),
} as const satisfies Record<string, ToastInput | ((s: string | null) => ToastInput)>;
