import { Fragment, useMemo, type ReactNode } from 'react';
import { mentionSpans } from './mentions';
import { useUsers } from './use-users';

/**
 * A message's text with each `@username` of a member highlighted, for every reader (mentions.ts);
 * an `@word` that names no member stays plain.
 */
export function MentionText({ text }: { text: string }) {
  const users = useUsers();
  const names = useMemo(() => new Set((users.data ?? []).map((u) => u.username.toLowerCase())), [users.data]);
  const spans = mentionSpans(text).filter((span) => names.has(span.name.toLowerCase()));
  if (spans.length === 0) return <>{text}</>;
  const parts: ReactNode[] = [];
  let at = 0;
  for (const span of spans) {
    parts.push(<Fragment key={`t${at}`}>{text.slice(at, span.start)}</Fragment>);
    parts.push(
      <mark key={`m${span.start}`} className="rounded bg-accent/20 px-0.5 font-medium text-accent" data-mention={span.name}>
        {text.slice(span.start, span.end)}
      </mark>,
    );
    at = span.end;
  }
  parts.push(<Fragment key={`t${at}`}>{text.slice(at)}</Fragment>);
  return <>{parts}</>;
}
