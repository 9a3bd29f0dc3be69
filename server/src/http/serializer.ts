/**
 * Answers leave only as their route's response schema says: a handler that misses a required
 * field, or returns one the schema does not declare, fails loudly (a 500 and an error in the log)
 * instead of shipping it silently or having it stripped unnoticed.
 */
import type { FastifySerializerCompiler } from 'fastify';
import { ResponseSerializationError } from 'fastify-type-provider-zod';
import { z } from 'zod';

type Path = (string | number)[];

/** The first place where `sent` carries a key that the schema's output `kept` dropped. */
function undeclaredKey(sent: unknown, kept: unknown, path: Path = []): Path | null {
  if (Array.isArray(sent) && Array.isArray(kept)) {
    for (let i = 0; i < sent.length; i++) {
      const found = undeclaredKey(sent[i], kept[i], [...path, i]);
      if (found) return found;
    }
    return null;
  }
  if (sent && kept && typeof sent === 'object' && typeof kept === 'object') {
    for (const [key, value] of Object.entries(sent)) {
      if (value === undefined) continue;
      if (!(key in kept)) return [...path, key];
      const found = undeclaredKey(value, (kept as Record<string, unknown>)[key], [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

export const serializerCompiler: FastifySerializerCompiler<z.ZodType> =
  ({ schema, method, url }) =>
  (data) => {
    const result = z.safeEncode(schema, data);
    if (!result.success) throw new ResponseSerializationError(method, url, { cause: result.error });
    const extra = undeclaredKey(data, result.data);
    if (extra) {
      const key = String(extra[extra.length - 1]);
      const cause = new z.ZodError([
        { code: 'unrecognized_keys', keys: [key], path: extra.slice(0, -1), message: `Unrecognized key: "${key}"`, input: data },
      ]);
      throw new ResponseSerializationError(method, url, { cause });
    }
    return JSON.stringify(result.data);
  };
