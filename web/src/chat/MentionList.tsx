import { cn } from '../lib/cn';
import type { MentionCompletion } from './use-mention-completion';

/** The members to mention, above the composer (use-mention-completion.ts); the text field keeps the focus. */
export function MentionList({ completion }: { completion: MentionCompletion }) {
  if (completion.options.length === 0) return null;
  return (
    <ul
      id={completion.listId}
      role="listbox"
      aria-label="Members to mention"
      className="absolute bottom-full left-0 z-20 mb-1 max-h-56 w-64 max-w-full overflow-y-auto rounded-md border border-border bg-surface-raised p-1 shadow-lg"
    >
      {completion.options.map((name, i) => (
        <li
          key={name}
          id={completion.optionId(i)}
          role="option"
          aria-selected={i === completion.active}
          className={cn(
            'cursor-pointer truncate rounded px-2 py-1.5 text-sm',
            i === completion.active ? 'bg-accent/20 text-accent' : 'text-foreground',
          )}
          // The field keeps the focus (and the caret) while the mouse chooses.
          onMouseDown={(e) => e.preventDefault()}
          onMouseEnter={() => completion.setActive(i)}
          onClick={() => completion.choose(i)}
        >
          @{name}
        </li>
      ))}
    </ul>
  );
}
