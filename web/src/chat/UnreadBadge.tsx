import { countLabel } from './unread';

/** The number of unread messages of a conversation; read aloud as part of its button's name. */
export function UnreadBadge({ count }: { count: number }) {
  if (count === 0) return null;
  return (
    <span
      className="ml-auto shrink-0 rounded-full bg-accent px-1.5 text-xs font-semibold leading-5 text-background"
      data-testid="unread-count"
    >
      {countLabel(count)}
      <span className="sr-only"> unread</span>
    </span>
  );
}
