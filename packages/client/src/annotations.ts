/**
 * Reactions and edits folded into the messages they annotate (docs/architecture.md, replies,
 * reactions and edits). An annotation is held like any message (so decryption, expiry, erasure
 * and the history cursor treat it alike) but never shown as a row: the view's rows leave it out,
 * and its effect is folded afresh from everything held each time the view changes. An annotation
 * whose target is not loaded yet stays held, and counts once the target comes (an older page).
 */
import { reactionEmojis, type Message, type ReactionEmoji } from '@enclave/protocol';
import type { DecryptResult } from './message-decryptor';

/** One emoji's reactions on a message: who reacted, and with which reaction messages (to remove them). */
export type Reaction = {
  emoji: ReactionEmoji;
  /** Member id → their reaction messages with this emoji (one counts; a repeat changes nothing). */
  by: ReadonlyMap<string, readonly number[]>;
};

/** What a message's annotations say of it. */
export type Folded = {
  /** In the order of {@link reactionEmojis}; only emoji someone reacted with. */
  reactions: readonly Reaction[];
  /** The latest edit by the message's own sender: its text, and the edit's id. */
  edit?: { text: string; id: number };
  /** Every edit of the sender's held, oldest first (the older ones are deleted after a new one). */
  editIds: readonly number[];
};

/** Whether a message is an annotation (never a row): the server-visible mark. */
export const isAnnotation = (message: Message): boolean => message.targetId !== null;

/** The rows of a conversation: its messages that are not annotations, oldest first. */
export const rowsOf = (messages: Iterable<Message>): Message[] => [...messages].filter((m) => !isAnnotation(m)).sort((a, b) => a.id - b.id);

/**
 * Folds every annotation held into its target, by target id. An annotation counts only when it
 * opened as one (a `targetId` on a plain message, or the other way round, counts for nothing), its
 * target is held and is no annotation itself; an edit only from the target's own sender.
 */
export function foldAnnotations(messages: ReadonlyMap<number, Message>, results: ReadonlyMap<number, DecryptResult>): Map<number, Folded> {
  const reactions = new Map<number, Map<ReactionEmoji, Map<string, number[]>>>();
  const edits = new Map<number, { text: string; id: number }[]>();
  const annotations = [...messages.values()].filter(isAnnotation).sort((a, b) => a.id - b.id);
  for (const m of annotations) {
    const target = messages.get(m.targetId!);
    const result = results.get(m.id);
    if (!target || isAnnotation(target) || result?.status !== 'ok' || !result.annotation) continue;
    const { annotation } = result;
    if (annotation.kind === 'edit') {
      if (m.senderId !== target.senderId) continue;
      edits.set(target.id, [...(edits.get(target.id) ?? []), { text: annotation.text, id: m.id }]);
      continue;
    }
    const byEmoji = reactions.get(target.id) ?? new Map<ReactionEmoji, Map<string, number[]>>();
    const by = byEmoji.get(annotation.emoji) ?? new Map<string, number[]>();
    by.set(m.senderId, [...(by.get(m.senderId) ?? []), m.id]);
    byEmoji.set(annotation.emoji, by);
    reactions.set(target.id, byEmoji);
  }
  const folded = new Map<number, Folded>();
  for (const id of new Set([...reactions.keys(), ...edits.keys()])) {
    const byEmoji = reactions.get(id);
    const targetEdits = edits.get(id) ?? [];
    const edit = targetEdits.at(-1);
    folded.set(id, {
      reactions: reactionEmojis.flatMap((emoji) => {
        const by = byEmoji?.get(emoji);
        return by ? [{ emoji, by }] : [];
      }),
      ...(edit ? { edit } : {}),
      editIds: targetEdits.map((e) => e.id),
    });
  }
  return folded;
}

/** The first line of a text, for a reply's quote. */
export const firstLine = (text: string): string => text.split('\n', 1)[0] ?? '';
