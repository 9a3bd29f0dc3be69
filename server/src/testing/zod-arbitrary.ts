/**
 * fast-check arbitraries from zod 4 schemas, for the property tests of the route table and the
 * socket frames. No maintained package maps zod 4 to fast-check 4 (zod-fast-check stops at zod 3
 * and fast-check 3), so this covers what the protocol's input schemas use, read from zod's
 * definitions (`schema._zod.def`, zod's interface for tools like this one). A schema kind it does
 * not know throws with its path, so a new route with a new zod feature fails loudly here rather
 * than going untested.
 *
 * Values are drawn from the schema's input side (what a client sends). Refinements and transforms
 * cannot be inverted in general; the one transform the protocol uses, a comma-separated list in a
 * query (`z.string().transform(split).pipe(z.array(...))`), is generated as such a list.
 */
import fc from 'fast-check';
import type { z } from 'zod';

/** Values worth drawing more often than chance would: ids of members and keys that exist. */
export type ArbitraryHints = { ids?: readonly string[] };

type Check = {
  check: string;
  format?: string;
  pattern?: RegExp;
  minimum?: number;
  maximum?: number;
  length?: number;
  value?: number;
  inclusive?: boolean;
};
type Def = {
  type: string;
  checks?: { _zod: { def: Check } }[];
  format?: string;
  pattern?: RegExp;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  values?: unknown[];
  entries?: Record<string, string | number>;
};

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const checksOf = (def: Def): Check[] => (def.checks ?? []).map((c) => c._zod.def);

/** Longest string or array drawn for a schema without a smaller maximum: bodies stay small enough to send thousands. */
const DRAW_CAP = 1024;
const ARRAY_CAP = 8;

/** An arbitrary of values the schema's input side accepts (up to refinements, see above). */
export function arbitraryOf(schema: z.ZodType, hints: ArbitraryHints = {}, at = '$'): fc.Arbitrary<unknown> {
  const def = defOf(schema);
  switch (def.type) {
    case 'string':
      return stringOf(def, hints);
    case 'number':
      return numberOf(def);
    case 'boolean':
      return fc.boolean();
    case 'undefined':
      return fc.constant(undefined);
    case 'null':
      return fc.constant(null);
    case 'unknown':
      // Any JSON a client could send (the decoys take whatever they get).
      return fc.jsonValue({ maxDepth: 3 });
    case 'literal':
      return fc.constantFrom(...(def.values ?? []));
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries ?? {}));
    case 'optional':
    case 'default':
      return fc.option(arbitraryOf(def.innerType!, hints, at), { nil: undefined });
    case 'nullable':
      return fc.option(arbitraryOf(def.innerType!, hints, at), { nil: null });
    case 'union':
      return fc.oneof(...def.options!.map((o, i) => arbitraryOf(o, hints, `${at}|${i}`)));
    case 'array': {
      const { min, max } = lengthBounds(checksOf(def));
      return fc.array(arbitraryOf(def.element!, hints, `${at}[]`), { minLength: min, maxLength: Math.min(max, min + ARRAY_CAP) });
    }
    case 'object':
      return objectOf(def, hints, at);
    case 'pipe':
      return pipeOf(def, hints, at);
    default:
      throw new Error(`zod-arbitrary: no arbitrary for zod type '${def.type}' at ${at}; teach server/src/testing/zod-arbitrary.ts`);
  }
}

/** The schema's kind at a field (`string`, `number`, ...), looking through optional and default. */
export function kindOf(schema: z.ZodType): string {
  const def = defOf(schema);
  return def.type === 'optional' || def.type === 'default' || def.type === 'nullable' ? kindOf(def.innerType!) : def.type;
}

function objectOf(def: Def, hints: ArbitraryHints, at: string): fc.Arbitrary<Record<string, unknown>> {
  const shape = def.shape!;
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    const fieldDef = defOf(field);
    // An optional field is present or absent, never present as undefined (JSON has no undefined).
    const optional = fieldDef.type === 'optional' || fieldDef.type === 'default';
    model[key] = arbitraryOf(optional ? fieldDef.innerType! : field, hints, `${at}.${key}`);
    if (!optional) required.push(key);
  }
  return fc.record(model, { requiredKeys: required, noNullPrototype: true });
}

/**
 * A pipe is drawn from its input side; a string transformed into an array (the protocol's comma
 * lists in queries) is drawn as the array's elements joined by commas, or as any string.
 */
function pipeOf(def: Def, hints: ArbitraryHints, at: string): fc.Arbitrary<unknown> {
  let input = def.in!;
  while (defOf(input).type === 'pipe') input = defOf(input).in!;
  const out = defOf(def.out!);
  if (defOf(input).type === 'string' && out.type === 'array') {
    const list = arbitraryOf(def.out!, hints, `${at}>`) as fc.Arbitrary<unknown[]>;
    return fc.oneof(
      { arbitrary: list.map((items) => items.join(',')), weight: 4 },
      { arbitrary: arbitraryOf(input, hints, `${at}<`), weight: 1 },
    );
  }
  return arbitraryOf(input, hints, `${at}<`);
}

function lengthBounds(checks: Check[]): { min: number; max: number } {
  let min = 0;
  let max = Number.POSITIVE_INFINITY;
  for (const c of checks) {
    if (c.check === 'min_length') min = Math.max(min, c.minimum ?? 0);
    if (c.check === 'max_length') max = Math.min(max, c.maximum ?? max);
    if (c.check === 'length_equals') min = max = c.length ?? 0;
  }
  return { min, max };
}

function stringOf(def: Def, hints: ArbitraryHints): fc.Arbitrary<string> {
  const checks = checksOf(def);
  if (def.format === 'uuid' || def.format === 'guid') {
    const uuid = fc.uuid();
    return hints.ids?.length ? fc.oneof(uuid, fc.constantFrom(...hints.ids)) : uuid;
  }
  if (def.format === 'ipv4') return fc.ipV4();
  if (def.format === 'ipv6') return fc.ipV6();
  if (def.format === 'datetime') return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString());
  const { min, max } = lengthBounds(checks);
  const patterns = [def.pattern, ...checks.filter((c) => c.check === 'string_format').map((c) => c.pattern)].filter(
    (p): p is RegExp => p instanceof RegExp,
  );
  const maxLength = Math.min(max, Math.max(min, DRAW_CAP));
  if (patterns.length > 0) {
    const pattern = patterns[0]!;
    return fc
      .stringMatching(boundRepetition(pattern, min, maxLength))
      .filter((s) => patterns.every((p) => p.test(s)) && s.length >= min && s.length <= max);
  }
  return fc.string({
    minLength: min,
    maxLength,
    unit: fc.oneof(fc.constant('x'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
  });
}

/**
 * fast-check draws `*` and `+` a few times at most, so `^[A-Za-z0-9+/]*={0,2}$` with a minimum of
 * 300 characters would almost never fit: the one unbounded repetition of a pattern is given the
 * string's length bounds instead.
 */
function boundRepetition(pattern: RegExp, min: number, max: number): RegExp {
  const unbounded = /(?<=[\])])[*+](?!\?)/g;
  const found = pattern.source.match(unbounded) ?? [];
  if (found.length !== 1 || (min === 0 && max >= DRAW_CAP)) return pattern;
  const from = Math.max(min, found[0] === '+' ? 1 : 0);
  return new RegExp(pattern.source.replace(unbounded, `{${from},${max}}`), pattern.flags);
}

function numberOf(def: Def): fc.Arbitrary<number> {
  let min = -Number.MAX_VALUE;
  let max = Number.MAX_VALUE;
  let minExcluded = false;
  let maxExcluded = false;
  let integer = false;
  for (const c of checksOf(def)) {
    if (c.check === 'number_format' && (c.format === 'safeint' || c.format === 'int32' || c.format === 'uint32')) integer = true;
    if (c.check === 'greater_than' && c.value !== undefined && c.value >= min) [min, minExcluded] = [c.value, !c.inclusive];
    if (c.check === 'less_than' && c.value !== undefined && c.value <= max) [max, maxExcluded] = [c.value, !c.inclusive];
  }
  if (integer) {
    const lo = Math.max(Number.MIN_SAFE_INTEGER, minExcluded ? Math.floor(min) + 1 : Math.ceil(min));
    const hi = Math.min(Number.MAX_SAFE_INTEGER, maxExcluded ? Math.ceil(max) - 1 : Math.floor(max));
    return fc.integer({ min: lo, max: hi });
  }
  return fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true });
}
