/**
 * U+0000 in any text of a request is a 400, never a 500 (PostgreSQL refuses it in text and
 * jsonb). Regression test for what the property tests found: the first three cases below answered
 * 500 on both backends; the others show that the rule holds where the text never reached the
 * database.
 */
import { errorResponseSchema, routes, routeUrl } from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { nulPath } from './nul-text';

describe('nulPath', () => {
  it('finds U+0000 in nested strings and keys, and nothing elsewhere', () => {
    expect(nulPath({ a: [1, { b: 'x\u0000' }] })).toEqual(['a', '1', 'b']);
    expect(nulPath({ ['k\u0000']: 1 })).toEqual(['k\u0000']);
    expect(nulPath({ a: 'x', b: [null, true, 2, { c: '\\u0000 written out' }] })).toBeNull();
  });
});

describe.each(backends)('text with U+0000 is refused as a client error (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let creator: InstanceType<typeof TestMember.Anonymous>;
  let alice: TestMember;

  beforeAll(async () => {
    creator = new TestMember.Anonymous(suite.server.url);
    [alice] = await suite.members('alice');
  });

  const cases: [string, () => Promise<{ status: number; body: unknown }>, RegExp][] = [
    ['a sale batch to export', () => creator.request('GET', routeUrl(routes.exportKeys, { query: { purchaseId: 'a\u0000b' } }), undefined, creatorHeaders), /^purchaseId: must not contain the NUL character$/],
    ['the purchase ID of new keys', () => creator.request('POST', routes.generateKeys.path, { quantity: 1, purchaseId: 'BATCH\u0000' }, creatorHeaders), /^purchaseId: /],
    ['a ban reason', () => creator.request('POST', routes.creatorBan.path, { userId: alice.id, reason: 'spam\u0000' }, creatorHeaders), /^reason: /],
    ['an invite key to validate', () => creator.request('POST', routes.validateKey.path, { inviteKey: '\u0000' }), /^inviteKey: /],
    ['a key search', () => creator.request('GET', routeUrl(routes.accessKeys, { query: { q: '\u0000' } }), undefined, creatorHeaders), /^q: /],
    ['a field name', () => creator.request('POST', routes.validateKey.path, '{"inviteKey":"x","a\\u0000":1}'), /: must not contain the NUL character$/],
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
