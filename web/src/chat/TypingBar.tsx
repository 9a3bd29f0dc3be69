import { useId, type ReactNode } from 'react';
import { typingText } from './unread';
import { useUsers } from './use-users';

type TypingBarProps = {
  typingIds: readonly string[];
  sharing: boolean;
  onSharingChange: (on: boolean) => void;
  /** More of the member's own chat settings, shown beside the typing opt-out. */
  settings?: ReactNode;
};

/** Who is typing here (announced politely), and the member's own choice to tell others. */
export function TypingBar({ typingIds, sharing, onSharingChange, settings }: TypingBarProps) {
  const toggleId = useId();
  const users = useUsers();
  const names = typingIds.map((id) => users.data?.find((u) => u.id === id)?.username).filter((n): n is string => Boolean(n));
  const text = typingText(names);
  return (
    <div className="flex min-h-7 items-center justify-between gap-2 px-3 pt-1 text-xs text-muted">
      {/* Always mounted, so that screen readers hear each change. */}
      <p aria-live="polite" className="min-w-0 truncate italic" data-testid="typing-indicator">
        {text}
      </p>
      <div className="flex flex-wrap items-center justify-end gap-x-3 gap-y-1">
        <label htmlFor={toggleId} className="flex shrink-0 cursor-pointer items-center gap-1.5">
          <input
            id={toggleId}
            type="checkbox"
            className="size-3.5 accent-emerald-500"
            checked={sharing}
            onChange={(e) => onSharingChange(e.target.checked)}
          />
          Show others when I type
        </label>
        {settings}
      </div>
    </div>
  );
}
