/**
 * Text PostgreSQL cannot store (U+0000, a lone surrogate) and nesting too deep are a 400 before
 * validation, never a 500 (json-input.ts). Regression tests for what the property tests and the
 * second audit found: the first three NUL cases below, a breach report with "\udc00" and a body
 * nested 5,000 deep (a stack overflow in the recursive NUL check) all answered 500.
 */
import { errorResponseSchema, routes, routeUrl } from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { MAX_JSON_DEPTH, unfitInput } from './json-input';

/** `{"a":[[…]]}` with `levels` objects and arrays in all. */
const nested = (levels: number) => JSON.parse(`{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`) as unknown;

describe('unfitInput', () => {
  it('finds U+0000 in nested strings and keys, and nothing elsewhere', () => {
    expect(unfitInput({ a: [1, { b: 'x\u0000' }] })).toEqual({ path: ['a', '1', 'b'], why: 'nul' });
    expect(unfitInput({ ['k\u0000']: 1 })).toEqual({ path: ['k\u0000'], why: 'nul' });
    expect(unfitInput({ a: 'x', b: [null, true, 2, { c: '\\u0000 written out' }] })).toBeNull();
  });

  it('finds a lone surrogate, high or low, in a value or a key; a pair (an emoji) is text', () => {
    expect(unfitInput(JSON.parse('{"reason":"\\udc00"}'))).toEqual({ path: ['reason'], why: 'surrogate' });
    expect(unfitInput({ v: [{ d: 'ok' }, { d: 'a\ud800' }] })).toEqual({ path: ['v', '1', 'd'], why: 'surrogate' });
    expect(unfitInput({ ['\udfff']: 1 })).toEqual({ path: ['\udfff'], why: 'surrogate' });
    expect(unfitInput({ text: '😀 \ud83d\ude00 €', q: 'ü' })).toBeNull();
  });

  it('reports the first problem in document order', () => {
    expect(unfitInput({ a: { b: 'x' }, c: '\udc00', d: '\u0000' })).toEqual({ path: ['c'], why: 'surrogate' });
  });

  it(`takes ${MAX_JSON_DEPTH} levels and refuses one more, without recursion: 5,000 and 500,000 deep alike`, () => {
    expect(unfitInput(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(unfitInput(nested(MAX_JSON_DEPTH + 1))).toEqual({ path: [], why: 'depth' });
    expect(unfitInput(nested(5_000))).toEqual({ path: [], why: 'depth' });
    expect(unfitInput(nested(500_000))).toEqual({ path: [], why: 'depth' });
  });

  it('walks parsed JSON only: raw bytes are not text', () => {
    expect(unfitInput(Buffer.from([0, 0xed, 0xb0, 0x80]))).toBeNull();
    expect(unfitInput(Object.assign(Object.create(null) as object, { q: '\u0000' }))).toEqual({ path: ['q'], why: 'nul' });
  });
});

/** A breach report's JSON with `reason` as written, raw text: JSON.stringify would not let a lone surrogate through unescaped, and this is what a client sends. */
const breachWith = (reason: string) =>
  `{"reason":${reason},"timestamp":"2026-01-01T00:00:00.000Z","threatVectors":[],"securityMetrics":{"threatLevel":1,"detections":1}}`;

describe.each(backends)('text PostgreSQL cannot store is refused as a client error (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let creator: InstanceType<typeof TestMember.Anonymous>;
  let alice: TestMember;

  beforeAll(async () => {
    creator = new TestMember.Anonymous(suite.server.url);
    [alice] = await suite.members('alice');
  });

  const cases: [string, () => Promise<{ status: number; body: unknown }>, RegExp][] = [
    [
      'a sale batch to export',
      () => creator.request('GET', routeUrl(routes.exportKeys, { query: { purchaseId: 'a\u0000b' } }), undefined, creatorHeaders),
      /^purchaseId: must not contain the NUL character$/,
    ],
    [
      'the purchase ID of new keys',
      () => creator.request('POST', routes.generateKeys.path, { quantity: 1, purchaseId: 'BATCH\u0000' }, creatorHeaders),
      /^purchaseId: /,
    ],
    [
      'a ban reason',
      () => creator.request('POST', routes.creatorBan.path, { userId: alice.id, reason: 'spam\u0000' }, creatorHeaders),
      /^reason: /,
    ],
    ['an invite key to validate', () => creator.request('POST', routes.validateKey.path, { inviteKey: '\u0000' }), /^inviteKey: /],
    [
      'a key search',
      () => creator.request('GET', routeUrl(routes.accessKeys, { query: { q: '\u0000' } }), undefined, creatorHeaders),
      /^q: /,
    ],
    [
      'a field name',
      () => creator.request('POST', routes.validateKey.path, '{"inviteKey":"x","a\\u0000":1}'),
      /: must not contain the NUL character$/,
    ],
    [
      'a ban reason with a lone surrogate',
      () => creator.request('POST', routes.creatorBan.path, '{"userId":"' + alice.id + '","reason":"spam\\udc00"}', creatorHeaders),
      /^reason: must be well-formed Unicode text/,
    ],
    [
      'an anonymous breach report with a lone surrogate',
      () => creator.request('POST', routes.breachReport.path, breachWith('"\\udc00"')),
      /^reason: must be well-formed Unicode text/,
    ],
    [
      'a field name with a lone surrogate',
      () => creator.request('POST', routes.validateKey.path, '{"inviteKey":"x","\\ud800":1}'),
      /^\ud800: must be well-formed Unicode text/,
    ],
  ];

  for (const [what, send, message] of cases) {
    it(`in ${what}`, async () => {
      const res = await send();
      expect(res.status).toBe(400);
      expect(errorResponseSchema.parse(res.body)).toMatchObject({ code: 'invalid_request', error: expect.stringMatching(message) });
    });
  }

  it('left the member unbanned and logged no error', async () => {
    expect((await alice.attempt(routes.me, {})).status).toBe(200);
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
