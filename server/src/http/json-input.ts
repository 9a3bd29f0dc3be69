/**
 * What the server refuses in any JSON it is given, route body, query or socket frame, before
 * anything else reads it:
 *
 * - text PostgreSQL cannot store: U+0000 (refused in `text` and `jsonb`), and a lone surrogate
 *   (`"\udc00"` in JSON: `jsonb` refuses its escape, a `text` column would get U+FFFD instead).
 *   Either failed its query with a 500, a breach report's after its action was done;
 * - nesting deeper than MAX_JSON_DEPTH: no message of the protocol comes near it, and anything
 *   recursive over a 5,000-deep body overflowed the stack (a 500).
 *
 * The walk is iterative, so it is bounded by the input's size, never by the stack.
 */
import { Stream } from 'node:stream';
import { errorCodes } from '@enclave/protocol';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';

/** Objects and arrays inside one another; the deepest message of the protocol has 4. */
export const MAX_JSON_DEPTH = 64;

/** With the `u` flag a surrogate range matches only a surrogate that is not half of a pair. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

export type Unfit = { path: string[]; why: 'nul' | 'surrogate' | 'depth' };

const textFault = (s: string): Unfit['why'] | null => (s.includes('\u0000') ? 'nul' : LONE_SURROGATE.test(s) ? 'surrogate' : null);

/** Parsed JSON and query strings: raw bytes (an upload's body) and streams are not text to walk. */
const isContainer = (v: unknown): v is object => v !== null && typeof v === 'object' && !ArrayBuffer.isView(v) && !(v instanceof Stream);

type Item = { value: unknown; key: string | null; parent: Item | null; depth: number };

/** The first string or key (in document order) PostgreSQL cannot store, or the first level too deep; null if none. */
export function unfitInput(value: unknown): Unfit | null {
  const pathOf = (item: Item): string[] => {
    const path: string[] = [];
    for (let at: Item | null = item; at?.key != null; at = at.parent) path.unshift(at.key);
    return path;
  };
  const stack: Item[] = [{ value, key: null, parent: null, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const keyFault = item.key === null ? null : textFault(item.key);
    if (keyFault) return { path: pathOf(item), why: keyFault };
    if (typeof item.value === 'string') {
      const why = textFault(item.value);
      if (why) return { path: pathOf(item), why };
      continue;
    }
    if (!isContainer(item.value)) continue;
    const depth = item.depth + 1;
    if (depth > MAX_JSON_DEPTH) return { path: [], why: 'depth' };
    const entries = Object.entries(item.value);
    // Pushed last first, so that they are looked at in document order.
    for (let i = entries.length - 1; i >= 0; i--) stack.push({ value: entries[i]![1], key: entries[i]![0], parent: item, depth });
  }
  return null;
}

/** "field: why", or for nesting "<whole> is nested too deeply …"; `whole` names the input ("Request body", "Frame"). */
export function describeUnfit(found: Unfit, whole: string, part: string): string {
  if (found.why === 'depth') return `${whole} is nested too deeply (at most ${MAX_JSON_DEPTH} levels)`;
  const field = found.path.join('.') || part;
  return found.why === 'nul'
    ? `${field}: must not contain the NUL character`
    : `${field}: must be well-formed Unicode text (it holds a lone surrogate)`;
}

/** A `preValidation` hook for every route (http/routes.ts): a 400 naming the field, before the schemas read anything. */
export async function refuseUnfitInput(req: FastifyRequest): Promise<void> {
  for (const [part, value] of [
    ['query', req.query],
    ['params', req.params],
    ['body', req.body],
  ] as const) {
    const found = unfitInput(value);
    if (found)
      throw new HttpError(400, errorCodes.invalidRequest, describeUnfit(found, part === 'body' ? 'Request body' : `The ${part}`, part));
  }
}
