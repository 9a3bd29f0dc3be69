import { useCallback, useId, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { completionsFor, insertMention, mentionQueryAt, type MentionQuery } from './mentions';

export type MentionCompletion = {
  /** The names offered for the `@letters` before the caret; empty when the list is closed. */
  options: string[];
  active: number;
  listId: string;
  optionId: (index: number) => string;
  /** The text or the caret moved: the list follows the `@letters` before the caret. */
  update: (text: string, caret: number) => void;
  /** Up/Down move, Enter/Tab choose, Escape closes; true when the key was the list's. */
  onKeyDown: (event: KeyboardEvent<HTMLTextAreaElement>) => boolean;
  choose: (index: number) => void;
  setActive: (index: number) => void;
};

/**
 * The composer's @mention completion (mentions.ts): typing `@` and letters lists the members whose
 * names fit; choosing one puts `@username ` in the text, in place of what was typed.
 */
export function useMentionCompletion(
  text: string,
  setText: (text: string) => void,
  field: RefObject<HTMLTextAreaElement | null>,
  usernames: readonly string[],
): MentionCompletion {
  const listId = useId();
  const [query, setQuery] = useState<MentionQuery | null>(null);
  const [active, setActive] = useState(0);
  /** Where the `@` was when Escape closed the list: it stays closed for that mention. */
  const [dismissed, setDismissed] = useState<number | null>(null);
  const caretAfter = useRef<number | null>(null);
  const options = useMemo(() => (query ? completionsFor(usernames, query.query) : []), [query, usernames]);

  const update = useCallback(
    (next: string, caret: number) => {
      const found = mentionQueryAt(next, caret);
      setQuery(found && found.start !== dismissed ? found : null);
      if (!found) setDismissed(null);
      setActive(0);
    },
    [dismissed],
  );

  const choose = useCallback(
    (index: number) => {
      const name = options[index];
      const caret = field.current?.selectionStart ?? text.length;
      if (!query || name === undefined) return;
      const next = insertMention(text, caret, query, name);
      caretAfter.current = next.caret;
      setText(next.text);
      setQuery(null);
    },
    [options, query, text, setText, field],
  );

  // The caret goes after the inserted name once the text is in the field.
  useLayoutEffect(() => {
    const caret = caretAfter.current;
    if (caret === null || !field.current) return;
    caretAfter.current = null;
    field.current.focus();
    field.current.setSelectionRange(caret, caret);
  });

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (options.length === 0 || event.nativeEvent.isComposing) return false;
    const move = (to: number) => {
      event.preventDefault();
      setActive((to + options.length) % options.length);
      return true;
    };
    switch (event.key) {
      case 'ArrowDown':
        return move(active + 1);
      case 'ArrowUp':
        return move(active - 1);
      case 'Enter':
      case 'Tab':
        if (event.shiftKey) return false;
        event.preventDefault();
        choose(active);
        return true;
      case 'Escape':
        // Closes the list only, not whatever the composer sits in.
        event.preventDefault();
        event.stopPropagation();
        setDismissed(query?.start ?? null);
        setQuery(null);
        return true;
      default:
        return false;
    }
  };

  return { options, active, listId, optionId: (i) => `${listId}-${i}`, update, onKeyDown, choose, setActive };
}
