import { X } from 'lucide-react';
import { useDeferredValue, useId, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Button } from '../components/ui/Button';
import { Input } from '../components/ui/Input';
import { dayKey, formatMessageTime } from '../lib/format';
import type { ConversationView } from '@enclave/client';
import { searchMessages } from './message-search';

type MessageSearchProps = {
  view: ConversationView;
  nameOf: (userId: string) => string;
  onChoose: (messageId: number) => void;
  onClose: () => void;
};

/**
 * A search over this conversation's messages decrypted in this tab. Arrow keys move between the
 * field and the results, Enter chooses, Escape closes.
 */
export function MessageSearch({ view, nameOf, onChoose, onClose }: MessageSearchProps) {
  const hintId = useId();
  const [query, setQuery] = useState('');
  // Typing stays responsive over a long history: the scan runs after the keystroke is shown.
  const deferred = useDeferredValue(query);
  const found = useMemo(
    () => searchMessages(view.messages, view.results, deferred, view.annotations),
    [view.messages, view.results, deferred, view.annotations],
  );
  const list = useRef<HTMLUListElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const today = dayKey(new Date());

  function onKeyDown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      onClose();
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = at + (event.key === 'ArrowDown' ? 1 : -1);
    event.preventDefault();
    if (next < 0) field.current?.focus();
    else buttons[Math.min(next, buttons.length - 1)]?.focus();
  }

  return (
    <section aria-label="Search messages" className="grid gap-2 border-b border-border p-3" onKeyDown={onKeyDown}>
      <div className="flex items-center gap-2">
        <Input
          ref={field}
          type="search"
          aria-label="Search this conversation"
          aria-describedby={hintId}
          placeholder="Search messages…"
          autoFocus
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="h-9"
        />
        <Button variant="ghost" size="icon" aria-label="Close search" onClick={onClose}>
          <X aria-hidden="true" />
        </Button>
      </div>
      <p id={hintId} className="text-xs text-muted">
        Searches the messages decrypted in this tab. Their text is never written to this browser’s storage, so older messages are found once
        they are loaded.
      </p>
      {deferred.trim() ? (
        <p role="status" className="text-xs text-muted">
          {found.total === 0
            ? 'No messages found'
            : found.total > found.hits.length
              ? `${found.total} found; the newest ${found.hits.length} are listed`
              : `${found.total} found`}
        </p>
      ) : null}
      {found.hits.length ? (
        <ul ref={list} aria-label="Search results" className="grid max-h-48 gap-1 overflow-y-auto">
          {found.hits.map(({ message, text }) => (
            <li key={message.id}>
              <button
                type="button"
                className="grid w-full min-w-0 gap-0.5 rounded-md px-2 py-1.5 text-left hover:bg-surface-raised focus:bg-surface-raised focus:outline-none focus-visible:ring-2 focus-visible:ring-accent"
                onClick={() => onChoose(message.id)}
              >
                <span className="flex items-center gap-2 text-xs">
                  <span className="font-semibold text-foreground">{nameOf(message.senderId)}</span>
                  <time dateTime={message.timestamp} className="text-muted">
                    {formatMessageTime(message.timestamp, today)}
                  </time>
                </span>
                <span className="truncate text-sm text-foreground">{text}</span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
