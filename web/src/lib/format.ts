/** Display helpers shared by the screens (pure, so they are unit-tested): dates in the viewer's locale and time zone. */

const usdWhole = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumFractionDigits: 0 });
const usdCents = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
// Built once: a formatter costs far more to build than to use, and the chat formats every message.
const hourMinute = new Intl.DateTimeFormat([], { hour: '2-digit', minute: '2-digit' });
const calendarDate = new Intl.DateTimeFormat();

/** $1,250 for whole dollars, $30.50 otherwise; "—" for no amount. */
export function formatUsd(amount: number | null): string {
  if (amount === null) return '—';
  return Number.isInteger(amount) ? usdWhole.format(amount) : usdCents.format(amount);
}

/** A calendar date in the reader's locale; `never` (by default "Never", for a key without expiry) for no date. */
export function formatDate(iso: string | null, never = 'Never'): string {
  if (!iso) return never;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}

/** Date and time, "—" for no date. */
export function formatDateTime(iso: string | null): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatTime(ms: number): string {
  return timeOnly.format(new Date(ms));
}

/** The local calendar day of `date`, for comparing days without formatting them. */
export function dayKey(date: Date): string {
  return `${date.getFullYear()}-${date.getMonth()}-${date.getDate()}`;
}

/** A message's time: "14:05" today, the date before it on other days (as `toLocaleString` would write them). */
export function formatMessageTime(iso: string, today: string = dayKey(new Date())): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const time = hourMinute.format(date);
  return dayKey(date) === today ? time : `${calendarDate.format(date)} ${time}`;
}

const steps: [Intl.RelativeTimeFormatUnit, number][] = [
  ['second', 60],
  ['minute', 60],
  ['hour', 24],
  ['day', 30],
  ['month', 12],
  ['year', Number.POSITIVE_INFINITY],
];

/** "3 minutes ago", "yesterday"; "never" for no date. */
export function formatRelative(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  let amount = (new Date(iso).getTime() - now) / 1000;
  for (const [unit, size] of steps) {
    if (Math.abs(amount) < size) return relative.format(Math.round(amount), unit);
    amount /= size;
  }
  return dateTime.format(new Date(iso));
}

/**
 * A key shortened for tables and buttons' names: its first 8 characters and its last `tail`. The full
 * value stays in the title and the copy buttons.
 */
export function shortKey(key: string, tail = 8): string {
  return key.length > 8 + tail ? `${key.slice(0, 8)}…${key.slice(-tail)}` : key;
}

/** "1 key", "3 keys". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A file size as members read it: "812 B", "14.2 KB", "3.4 MB" (1 KB = 1,024 bytes). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
