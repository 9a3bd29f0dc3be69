/**
 * Requests and frames for the property tests: valid ones drawn from the route table's schemas
 * (zod-arbitrary.ts), and mutations of them — wrong types, missing and extra fields, huge strings,
 * unicode, prototype-pollution keys, numbers at the limits, malformed JSON, wrong content types,
 * broken query strings. A request is plain data, so fast-check can print and replay it.
 */
import { routeUrl, type RouteDefinition } from '@enclave/protocol';
import fc from 'fast-check';
import type { z } from 'zod';
import { arbitraryOf, kindOf, type ArbitraryHints } from './zod-arbitrary';

export type FuzzRequest = {
  /** What was done to the valid request, for the failure report. */
  mutation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  /** Sent as is; absent for GET and HEAD. */
  body?: string;
};

type Input = { body?: unknown; query?: Record<string, unknown>; params?: Record<string, unknown> };

/** JSON text of an object with these entries, in order; unlike JSON.stringify it writes `__proto__` and repeated keys. */
const jsonObjectText = (entries: readonly (readonly [string, unknown])[]): string =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;

const KiB = 1024;

/** Keys an attacker sends to poison prototypes or confuse a merge. */
const pollutionKeys = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf'];

/** Numbers at the edges: of int32, of safe integers, of doubles, and just off the usual bounds. */
const edgeNumbers = [
  0,
  -0,
  -1,
  1,
  0.5,
  -0.5,
  1e-7,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 32,
  Number.MAX_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 2,
  -Number.MAX_SAFE_INTEGER - 2,
  1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  99,
  100,
  101,
  199,
  200,
  201,
  999,
  1000,
  1001,
  10_000,
  10_001,
];

/** Text that breaks naive handling: control characters, lone surrogates, right-to-left marks, combining marks, emoji, SQL and path syntax. */
const nastyStrings = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  '\u202e\u202d',
  'e\u0301\u0301\u0301',
  '👩‍👩‍👧‍👦',
  '\uffff',
  '\r\n\r\n',
  "'; DROP TABLE users; --",
  '../../etc/passwd',
  '%00',
  '${7*7}',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  'ALL',
  'general',
];

/** Any JSON value, with the awkward strings and numbers above mixed in. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(...edgeNumbers),
  fc.constantFrom(...nastyStrings),
  fc.string({ unit: 'grapheme', maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constant(null),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);

/** Strings past every limit: the JSON body limit is 64 KiB, the largest field limit 8 KiB. */
const hugeString = fc
  .constantFrom(257, 4097, 8193, 70 * KiB)
  .chain((n) => fc.constantFrom('a', '€', '𝄞', '0').map((c) => c.repeat(Math.ceil(n / c.length))));

/** A value of the wrong kind for a field of this kind (so the mutation really is a mutation). */
function wrongFor(schema: z.ZodType): fc.Arbitrary<unknown> {
  const kind = kindOf(schema);
  const wrongKinds: Record<string, fc.Arbitrary<unknown>> = {
    string: fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
    ),
    number: fc.oneof(
      fc.string({ maxLength: 12 }),
      fc.constantFrom('1', '0x10', '1e3', ' 5 '),
      fc.boolean(),
      fc.constant(null),
      fc.constant([1]),
    ),
    boolean: fc.oneof(fc.constantFrom('true', 'false', 0, 1, 'yes'), fc.constant(null)),
    array: fc.oneof(fc.string(), fc.integer(), fc.constant({}), fc.constant(null), fc.constant('a,b,c')),
    object: fc.oneof(fc.string(), fc.integer(), fc.constant([]), fc.constant(null)),
  };
  return fc.oneof(wrongKinds[kind] ?? wrongValue, wrongValue);
}

/** A value at the edge of what the field allows, or past it: huge, unicode, edge numbers, case changes. */
function edgeFor(schema: z.ZodType, valid: unknown): fc.Arbitrary<unknown> {
  const kind = kindOf(schema);
  if (kind === 'number') return fc.constantFrom(...edgeNumbers);
  if (kind === 'string') {
    const s = typeof valid === 'string' ? valid : '';
    return fc.oneof(
      hugeString,
      fc.constantFrom(...nastyStrings),
      fc.constantFrom(s.toUpperCase(), ` ${s} `, `${s}\u0000`, s.slice(0, -1), `${s}${s.slice(-1)}`, `${s}\u0301`),
    );
  }
  if (kind === 'array') {
    const items = Array.isArray(valid) ? valid : [];
    return fc.constantFrom(
      [],
      items.concat(items, items),
      Array.from({ length: 1001 }, () => items[0] ?? 'x'),
    );
  }
  return wrongValue;
}

/** The valid inputs of a route, drawn from its schemas. */
export function validInput(route: RouteDefinition, hints: ArbitraryHints): fc.Arbitrary<Input> {
  const part = (schema: z.ZodType | undefined) => (schema ? arbitraryOf(schema, hints) : fc.constant(undefined));
  // A raw body (an upload) is bytes, any of them: drawn as a binary string of at least a GCM tag.
  const body = route.rawBody ? fc.string({ unit: 'binary', minLength: 16, maxLength: 512 }) : part(route.body);
  return fc.record({ body, query: part(route.query), params: part(route.params) }).map((input) => input as Input);
}

/** A valid request of a route: its inputs as the clients send them. */
export function requestOf(route: RouteDefinition, input: Input, mutation = 'none'): FuzzRequest {
  const hasBody = (route.body !== undefined || route.rawBody !== undefined) && input.body !== undefined;
  const contentType = route.rawBody?.contentType ?? 'application/json';
  return {
    mutation,
    method: route.method,
    url: routeUrl(route, input),
    headers: hasBody ? { 'content-type': contentType } : {},
    ...(hasBody ? { body: route.rawBody ? String(input.body) : JSON.stringify(input.body) } : {}),
  };
}

/** Field-level mutations of an object: one field missing, of the wrong type, at an edge, or an extra field. */
function mutateObject(
  schema: z.ZodType | undefined,
  valid: Record<string, unknown>,
): fc.Arbitrary<{ what: string; entries: [string, unknown][] }> {
  const shape = schema ? ((schema as unknown as { _zod: { def: { shape?: Record<string, z.ZodType> } } })._zod.def.shape ?? {}) : {};
  const keys = Object.keys(shape);
  const entries = Object.entries(valid);
  const options: fc.Arbitrary<{ what: string; entries: [string, unknown][] }>[] = [
    fc
      .tuple(fc.oneof(fc.constantFrom(...pollutionKeys), fc.string({ maxLength: 16 })), wrongValue)
      .map(([k, v]) => ({ what: `extra field ${JSON.stringify(k)}`, entries: [...entries, [k, v] as [string, unknown]] })),
    fc
      .constantFrom(...pollutionKeys)
      .map((k) => ({ what: `pollution ${k}`, entries: [...entries, [k, { role: 'admin', isAdmin: true }] as [string, unknown]] })),
  ];
  if (keys.length) {
    const key = fc.constantFrom(...keys);
    options.push(
      key.map((k) => ({ what: `missing ${k}`, entries: entries.filter(([e]) => e !== k) })),
      key.chain((k) =>
        wrongFor(shape[k]!).map((v) => ({
          what: `wrong type ${k}`,
          entries: [...entries.filter(([e]) => e !== k), [k, v] as [string, unknown]],
        })),
      ),
      key.chain((k) =>
        edgeFor(shape[k]!, valid[k]).map((v) => ({
          what: `edge ${k}`,
          entries: [...entries.filter(([e]) => e !== k), [k, v] as [string, unknown]],
        })),
      ),
      // The same key twice: JSON parsers keep the last, validators must see that one.
      key.chain((k) => wrongValue.map((v) => ({ what: `duplicate ${k}`, entries: [...entries, [k, v] as [string, unknown]] }))),
    );
  }
  return fc.oneof(...options);
}

const malformedJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'nul',
    '{"a":1,}',
    "{'a':1}",
    '{"a":1}}',
    '\u0000',
    '',
    '   ',
    '{"a":"\\u12"}',
    '{"a":01}',
    '{"a":NaN}',
    '{"a":Infinity}',
    '\ufeff{}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
  ),
  fc.string({ maxLength: 64 }),
  fc.string({ unit: 'binary', maxLength: 64 }),
);

const wrongContentTypes = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=latin1',
  'application/jsonx',
  'application/json, text/plain',
  'APPLICATION/JSON',
  'application/*',
  '*/*',
  ';',
  'application/json;;;',
];

/** Mutated requests of a route: its body, its query and its path parameters broken in each way above. */
export function mutatedRequest(route: RouteDefinition, hints: ArbitraryHints): fc.Arbitrary<FuzzRequest> {
  const takesBody = route.method !== 'GET' && route.method !== 'HEAD';
  return validInput(route, hints).chain((input) => {
    const valid = requestOf(route, input);
    const options: fc.Arbitrary<FuzzRequest>[] = [queryMutation(route, input, valid)];
    if (route.params) options.push(paramsMutation(route, input, valid));
    if (takesBody) {
      const json = (mutation: string, body: string, contentType = 'application/json'): FuzzRequest => ({
        ...valid,
        mutation,
        headers: { 'content-type': contentType },
        body,
      });
      options.push(
        fc.jsonValue({ maxDepth: 3 }).map((v) => json('body any JSON value', JSON.stringify(v))),
        malformedJson.map((text) => json('body malformed JSON', text)),
        fc.constantFrom(...wrongContentTypes).map((type) => json(`content type ${type}`, valid.body ?? '{}', type)),
        // A body with no content type at all, and a JSON type on an empty body.
        fc.constant({ ...valid, mutation: 'body without content type', headers: {}, body: valid.body ?? '{}' }),
        fc.constant(json('empty body', '')),
        fc
          .constantFrom(70 * KiB, 1024 * KiB, 7 * 1024 * KiB)
          .map((n) => json(`body of ${n} bytes`, jsonObjectText([['pad', 'x'.repeat(n)]]))),
      );
      const body = input.body;
      if (body && typeof body === 'object' && !Array.isArray(body)) {
        options.push(
          mutateObject(route.body, body as Record<string, unknown>).map(({ what, entries }) =>
            json(`body ${what}`, jsonObjectText(entries)),
          ),
        );
      }
    }
    return fc.oneof(...options);
  });
}

/** Query strings: fields missing, extra, repeated, of huge or unicode values, or with broken percent-encoding. */
function queryMutation(route: RouteDefinition, input: Input, valid: FuzzRequest): fc.Arbitrary<FuzzRequest> {
  const path = valid.url.split('?')[0]!;
  const pairs = Object.entries(input.query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, String(v)] as [string, string]);
  const keys = pairs.map(([k]) => k);
  // URLSearchParams, as browsers do, sends a lone surrogate as U+FFFD where encodeURIComponent throws.
  const encode = (list: [string, string][]) => new URLSearchParams(list).toString();
  const at = (mutation: string, search: string): FuzzRequest => ({ ...valid, mutation, url: search ? `${path}?${search}` : path });
  const value = fc.oneof(
    hugeString.map((s) => s.slice(0, 8192)),
    fc.constantFrom(...nastyStrings),
    fc.string({ unit: 'grapheme', maxLength: 32 }),
    fc.constantFrom(...edgeNumbers).map(String),
  );
  const options: fc.Arbitrary<FuzzRequest>[] = [
    fc
      .tuple(fc.oneof(fc.constantFrom(...pollutionKeys, 'a[]', 'a[b]', ''), fc.string({ maxLength: 8 })), value)
      .map(([k, v]) => at(`query extra ${JSON.stringify(k)}`, encode([...pairs, [k, v]]))),
    // Percent-encoding a decoder may choke on, written raw.
    fc
      .constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%00', '%ED%A0%80', '&&&', '==', '+%2B+', '?&=')
      .map((raw) => at(`query raw ${raw}`, `${encode(pairs)}&${keys[0] ?? 'q'}=${raw}`)),
  ];
  if (keys.length) {
    const key = fc.constantFrom(...keys);
    options.push(
      key.map((k) => at(`query missing ${k}`, encode(pairs.filter(([p]) => p !== k)))),
      fc.tuple(key, value).map(([k, v]) => at(`query value ${k}`, encode([...pairs.filter(([p]) => p !== k), [k, v]]))),
      // A repeated key arrives as an array in the parsed query.
      fc.tuple(key, value).map(([k, v]) => at(`query repeated ${k}`, encode([...pairs, [k, v]]))),
    );
  }
  return fc.oneof(...options);
}

/** Path parameters of huge, unicode or traversal values (for routes that have them). */
function paramsMutation(route: RouteDefinition, input: Input, valid: FuzzRequest): fc.Arbitrary<FuzzRequest> {
  const names = Object.keys(input.params ?? {});
  // routeUrl encodes with encodeURIComponent, which refuses lone surrogates.
  const wellFormed = nastyStrings.filter((s) => s && !/[\ud800-\udfff]/.test(s));
  const value = fc.oneof(
    hugeString.map((s) => s.slice(0, 4096)),
    fc.constantFrom(...wellFormed),
    fc.string({ unit: 'grapheme', minLength: 1, maxLength: 32 }),
  );
  return fc.tuple(fc.constantFrom(...names), value).map(([name, v]) => {
    const query = valid.url.includes('?') ? valid.url.slice(valid.url.indexOf('?')) : '';
    return { ...valid, mutation: `param ${name}`, url: routeUrl(route, { params: { ...input.params, [name]: v } }).split('?')[0] + query };
  });
}

/** A client frame as sent: JSON text, raw text, or bytes sent as a binary frame. */
export type FuzzFrame = { mutation: string; text?: string; binary?: Uint8Array; invalidUtf8?: true };

/** Frames the server must refuse (error frame or a 4xxx/1008/1009 close), never crash on. */
export function mutatedFrame(validFrame: fc.Arbitrary<unknown>): fc.Arbitrary<FuzzFrame> {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 3 }).map((v) => ({ mutation: 'any JSON value', text: JSON.stringify(v) })),
    malformedJson.map((text) => ({ mutation: 'malformed JSON', text })),
    fc.tuple(validFrame, fc.oneof(fc.constantFrom(...pollutionKeys), fc.string({ maxLength: 12 })), wrongValue).map(([frame, k, v]) => ({
      mutation: `extra field ${JSON.stringify(k)}`,
      text: jsonObjectText([...Object.entries(frame as Record<string, unknown>), [k, v]]),
    })),
    wrongValue.map((type) => ({ mutation: 'type of the wrong kind', text: jsonObjectText([['type', type]]) })),
    fc
      .oneof(
        fc.constantFrom('subscribe', 'chat_message', 'PING', 'Authenticate', ' ping', 'ping\u0000', 'pong', 'authenticated'),
        fc.string({ maxLength: 16 }),
      )
      .map((type) => ({
        mutation: `unknown type ${JSON.stringify(type)}`,
        text: jsonObjectText([['type', type]]),
      })),
    fc.constantFrom(4097, 64 * KiB, 2 * 1024 * KiB).map((n) => ({
      mutation: `frame of ${n} bytes`,
      text: jsonObjectText([
        ['type', 'ping'],
        ['pad', 'x'.repeat(n)],
      ]),
    })),
    validFrame.map((frame) => ({ mutation: 'valid frame as binary', binary: new TextEncoder().encode(JSON.stringify(frame)) })),
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => ({ mutation: 'random binary', binary: bytes })),
    fc.constant({ mutation: 'invalid UTF-8 text', binary: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), invalidUtf8: true as const }),
  );
}
