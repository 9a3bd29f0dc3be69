/**
 * @mentions: plain `@username` in the message text, so a mention travels inside the encrypted
 * text and the server learns nothing new. Usernames are letters, digits, `.`, `-` and `_`
 * (packages/protocol/src/primitives.ts); a mention is the whole name, case-insensitive, not part
 * of an address (`bob@alice.example`) or of a longer name; a trailing `.` or `-` ends a sentence.
 */

/** A character of a username. */
const NAME_CHAR = /[A-Za-z0-9_.-]/;

/** The most completions listed at once. */
export const MAX_COMPLETIONS = 8;

/** The `@query` being typed just before the caret: where its `@` is, and the letters after it. */
export type MentionQuery = { start: number; query: string };

/**
 * The mention being typed at `caret`, if any: an `@` at the start or after a character that
 * cannot be in a name, followed by at least one name character up to the caret.
 */
export function mentionQueryAt(text: string, caret: number): MentionQuery | null {
  const before = text.slice(0, caret);
  const match = /(?:^|[^A-Za-z0-9_.@-])@([A-Za-z0-9_.-]{1,32})$/.exec(before);
  if (!match?.[1]) return null;
  return { start: caret - match[1].length - 1, query: match[1] };
}

/** Usernames for `query`: those starting with it first, then those containing it, case-insensitive. */
export function completionsFor(usernames: readonly string[], query: string, max = MAX_COMPLETIONS): string[] {
  const q = query.toLowerCase();
  const starts = usernames.filter((u) => u.toLowerCase().startsWith(q));
  const contains = usernames.filter((u) => !u.toLowerCase().startsWith(q) && u.toLowerCase().includes(q));
  return [...starts.sort(byName), ...contains.sort(byName)].slice(0, max);
}

const byName = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'base' });

/** The text with the `@query` at `mention` replaced by `@username ` and where the caret goes after it. */
export function insertMention(text: string, caret: number, mention: MentionQuery, username: string): { text: string; caret: number } {
  const inserted = `@${username} `;
  // A space already after the caret is not doubled.
  const after = text.slice(caret).replace(/^ /, '');
  return { text: text.slice(0, mention.start) + inserted + after, caret: mention.start + inserted.length };
}

/** A mention, as it stands in a text: from `start` (its `@`) to `end`, naming `name` as written. */
export type MentionSpan = { start: number; end: number; name: string };

/** Every `@name` of the text that stands as a whole word (see the top of this file). */
export function mentionSpans(text: string): MentionSpan[] {
  const spans: MentionSpan[] = [];
  for (const match of text.matchAll(/@([A-Za-z0-9_.-]+)/g)) {
    const at = match.index;
    const previous = at > 0 ? text[at - 1] : undefined;
    if (previous !== undefined && (NAME_CHAR.test(previous) || previous === '@')) continue;
    // A trailing '.' or '-' is punctuation, not part of the name.
    const name = (match[1] ?? '').replace(/[.-]+$/, '');
    if (!name) continue;
    spans.push({ start: at, end: at + 1 + name.length, name });
  }
  return spans;
}

/** Whether the text mentions `username` (`@username` as a whole word, case-insensitive). */
export function mentions(text: string, username: string): boolean {
  const wanted = username.toLowerCase();
  return mentionSpans(text).some((span) => span.name.toLowerCase() === wanted);
}
