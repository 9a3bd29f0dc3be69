/**
 * Rows of raw SQL (`db.execute`, a driver's `query`) parsed at the edge, as every other input is
 * (docs/architecture.md §3): the drivers differ in what they hand back, and a cast would hide it.
 */
import { z } from 'zod';

/**
 * A timestamp as a driver gives it: PostgreSQL's text (Drizzle's drivers parse no timestamps in
 * raw results), or a Date.
 */
export const dbTimestamp = z
  .union([z.string(), z.date()])
  .transform((v) => new Date(v))
  .pipe(z.date());

/** A bigint column: text on node-postgres, a number on PGlite; refused past 2^53, where a number loses digits. */
export const dbBigint = z
  .union([z.number(), z.string().regex(/^-?\d+$/)])
  .transform(Number)
  .pipe(z.number().int());

/** The rows of a raw query's result (both drivers' results carry `rows`), each parsed by `row`. */
export function rowsOf<S extends z.ZodType>(result: unknown, row: S): z.output<S>[] {
  return z.object({ rows: z.array(row) }).parse(result).rows;
}
