/** The channel bench's figures as rows of one Markdown table, and the formats they are written in. */

/** One figure: the phase it belongs to, what it is, and its value as written. */
export type Row = { phase: string; figure: string; value: string };

const grouped = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** 1234.5 → "1,235 ms"; below 10 ms with one decimal. */
export const ms = (n: number): string => (Number.isFinite(n) ? (n < 10 ? `${n.toFixed(1)} ms` : `${grouped.format(n)} ms`) : 'n/a');

/** A count with thousands grouped. */
export const count = (n: number): string => grouped.format(n);

/** Bytes in B, KB or MB (10^3, 10^6). */
export function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(2)} MB`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)} KB`;
  return `${grouped.format(n)} bytes`;
}

/** Median of the values (NaN for none). */
export function median(values: readonly number[]): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** "min / median / max" of durations. */
export const spread = (values: readonly number[]): string =>
  values.length ? `${ms(Math.min(...values))} / ${ms(median(values))} / ${ms(Math.max(...values))}` : 'none';

export function table(rows: readonly Row[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '| phase | figure | value |',
    '|---|---|---|',
    ...rows.map((r) => `| ${cell(r.phase)} | ${cell(r.figure)} | ${cell(r.value)} |`),
  ].join('\n');
}
