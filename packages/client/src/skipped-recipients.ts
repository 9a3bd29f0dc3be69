/**
 * Who this member's latest epoch of each conversation was not wrapped for, because their published
 * keys are not usable (SenderKeys' `onRecipientsSkipped`, docs/security.md §4). Those members cannot
 * read what this member sends there; the chat shows it as a warning naming them. A small external
 * store, read with `useSyncExternalStore`.
 */
import type { SkippedRecipient } from './key-trust';

const NONE: readonly SkippedRecipient[] = [];

export class SkippedRecipients {
  private readonly byConversation = new Map<string, readonly SkippedRecipient[]>();
  private readonly listeners = new Set<() => void>();

  /** The latest epoch's report for this conversation: an empty list clears the warning. */
  report = (conversationId: string, skipped: readonly SkippedRecipient[]): void => {
    const before = this.byConversation.get(conversationId) ?? NONE;
    if (before.length === 0 && skipped.length === 0) return;
    this.byConversation.set(conversationId, skipped.length ? [...skipped] : NONE);
    for (const listener of this.listeners) listener();
  };

  /** The members left out of this conversation's latest epoch (the same array until it changes). */
  of = (conversationId: string): readonly SkippedRecipient[] => this.byConversation.get(conversationId) ?? NONE;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
