/**
 * What a desktop notification says for an incoming message, if anything. Pure, so the rules are
 * tested as a table; use-notifications.ts keeps the member's choice and shows the notification.
 */
import type { DecryptResult } from '@enclave/client';

/** Off by default; 'generic' says only {@link GENERIC_TITLE}, 'details' the sender and the text. */
export type NotificationSetting = 'off' | 'generic' | 'details';

export const GENERIC_TITLE = 'New message';
/** Notification bodies stay short: the conversation is where the message is read. */
export const MAX_BODY_CHARS = 120;

export type IncomingMessage = {
  own: boolean;
  /** The conversation is open and the tab visible (use-unread.ts decides it). */
  inView: boolean;
  /** From the member list by sender id; undefined when the sender is not in it. */
  senderName: string | undefined;
  /** Undefined when this browser did not decrypt it (a conversation never opened here). */
  result: DecryptResult | undefined;
  /** The member muted its conversation in this browser: only a mention of them notifies. */
  muted?: boolean;
  /** Its decrypted text mentions the member (`@username`, mentions.ts). */
  mentionsMe?: boolean;
};

export type NotificationContent = { title: string; body: string };

/** The notification for a message, or null when there is none to show. */
export function notificationFor(setting: NotificationSetting, message: IncomingMessage): NotificationContent | null {
  if (setting === 'off' || message.own || message.inView) return null;
  // Muting silences a conversation, except for a mention of the member: they asked to be told of those.
  if (message.muted && !message.mentionsMe) return null;
  const generic = { title: GENERIC_TITLE, body: '' };
  if (setting === 'generic') return generic;
  // Only text that decrypted and passed its signature and pin checks; anything else could be forged.
  if (message.result?.status !== 'ok' || message.senderName === undefined) return generic;
  const { text, attachment } = message.result;
  // An attachment is named by its file (and its caption, if any).
  const body = attachment ? `📎 ${attachment.name}${text ? ` — ${text}` : ''}` : text;
  return { title: message.senderName, body: truncate(body, MAX_BODY_CHARS) };
}

/** At most `max` characters (code points, so no emoji is cut in half), with an ellipsis when cut. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/** Stored muted conversations: conversation ids; anything else is ignored (storage is the member's to edit). */
export function parseMuted(text: string | null): Set<string> {
  try {
    const value: unknown = JSON.parse(text ?? '[]');
    return new Set(Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  } catch {
    return new Set();
  }
}

/** A stored setting; anything else is off (storage is the member's to edit). */
export function parseNotificationSetting(text: string | null): NotificationSetting {
  return text === 'generic' || text === 'details' ? text : 'off';
}
