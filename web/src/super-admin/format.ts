/** How the console writes dates, amounts and keys: the viewer's locale and time zone. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });
const money = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatDateTime(iso: string | null): string {
  return iso ? dateTime.format(new Date(iso)) : '—';
}

export function formatDate(iso: string | null): string {
  return iso ? dateOnly.format(new Date(iso)) : '—';
}

export function formatTime(ms: number): string {
  return timeOnly.format(new Date(ms));
}

export function formatPrice(price: number | null): string {
  return price === null ? '—' : money.format(price);
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

/** A key shortened for tables: the full value stays in the title and the copy buttons. */
export function shortKey(key: string): string {
  return key.length > 16 ? `${key.slice(0, 8)}…${key.slice(-8)}` : key;
}
