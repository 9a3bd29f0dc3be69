/**
 * What the malformed-input table's rows are made of (docs/security.md §6): the fixture they draw
 * on, the row shape, and the refusals every body-taking route shares.
 */
import { limits } from '@enclave/protocol';
import type { TestMember } from '../../testing/member';

export type Fixture = {
  alice: TestMember;
  bob: TestMember;
  /** An unused invite key: register rows must fail on their own fault, not on the key. */
  freshKey: string;
  /** A complete, valid registration body (real keys) for an account that does not exist yet. */
  registerBody: () => Record<string, unknown>;
  /** A valid upload of a new general-channel epoch by Alice (fresh epoch id on every call). */
  epochBody: () => { epochId: string; receiverId: string; membershipVersion: number; shares: Record<string, unknown>[] };
  /** A valid send of Alice's uploaded general epoch at a message index no other row uses. */
  sendBody: (text?: string) => Promise<Record<string, unknown>>;
  /** Alice's real envelope for an unused index, with fields overridden. */
  envelopeWith: (over: Record<string, unknown>) => Promise<string>;
  /** An (epochId, index) already stored. */
  stored: { epochId: string; index: number };
  epochId: string;
  /** The public id of Bob's session: live, and not Alice's to end. */
  bobSessionId: string;
};

export type Who = 'member' | 'anonymous' | 'forged-cookie';

export type Row = {
  name: string;
  as?: Who;
  method: 'GET' | 'POST' | 'DELETE';
  path: string | ((f: Fixture) => string);
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown | ((f: Fixture) => unknown);
  /** Defaults to application/json whenever there is a body. */
  contentType?: string;
  expectStatus: number;
  expectMessage: RegExp;
};

export const KiB = 1024;
export const JSON_BODY_LIMIT = 64 * KiB;
/** POST /api/epochs alone takes large bodies (one share per channel member). */
// The epoch route takes one share per member of the channel (server/src/messages/routes.ts).
export const EPOCH_BODY_LIMIT = limits.epochMaxRecipients * 640;

/** `{"a":[[…]]}`: `levels` objects and arrays, one inside the other. */
export const deep = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

/** A syntactically valid JSON object just over `limit` bytes. */
export const oversize = (limit: number) => JSON.stringify({ pad: 'x'.repeat(limit) });

export const upper = (id: string) => id.toUpperCase();

/** A well-formed P2P host request. */
export const hostBody = { nodeType: 'community_host', capabilities: ['chat'], maxConnections: 10, location: 'Berlin' };

/** A member route signed out: anonymous, and with a session cookie that names no session. */
export const signedOut = (method: 'GET' | 'POST', path: string, body?: unknown): Row[] =>
  (['anonymous', 'forged-cookie'] as const).map((as) => ({
    name: `${method} ${path.split('?')[0]} — ${as === 'anonymous' ? 'anonymous' : 'forged session cookie'}`,
    as,
    method,
    path,
    body,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  }));

/** A signed-in member's body for `route` ("POST /path"), refused with this status and message. */
export const bodyRow = (
  route: string,
  name: string,
  body: unknown | ((f: Fixture) => unknown),
  expectStatus: number,
  expectMessage: RegExp,
): Row => {
  const [method, path] = route.split(' ') as ['POST', string];
  return { name: `${route} — ${name}`, method, path, body, expectStatus, expectMessage };
};

/** What every body-taking route must refuse the same way, whatever its schema. */
export function bodyBasics(route: string, who: Who, limit = JSON_BODY_LIMIT): Row[] {
  const [method, path] = route.split(' ') as ['POST', string];
  const row = (r: Omit<Row, 'method' | 'path' | 'as'>): Row => ({ ...r, name: `${route} — ${r.name}`, method, path, as: who });
  return [
    row({ name: 'non-JSON text as application/json', body: '{"not": json', expectStatus: 400, expectMessage: /not valid JSON/i }),
    row({ name: 'JSON cut short', body: '{"a":', expectStatus: 400, expectMessage: /not valid JSON/i }),
    row({
      name: 'text/plain content type',
      body: '{}',
      contentType: 'text/plain',
      expectStatus: 415,
      expectMessage: /Content-Type must be application\/json/,
    }),
    row({
      name: 'form-urlencoded content type',
      body: 'a=b',
      contentType: 'application/x-www-form-urlencoded',
      expectStatus: 415,
      expectMessage: /Content-Type must be application\/json/,
    }),
    row({ name: 'empty body', body: '', expectStatus: 400, expectMessage: /body is empty/i }),
    row({ name: 'no body and no content type', expectStatus: 400, expectMessage: /expected object/ }),
    row({ name: 'JSON null', body: 'null', expectStatus: 400, expectMessage: /expected object, received null/ }),
    row({ name: 'JSON array', body: '[]', expectStatus: 400, expectMessage: /expected object, received array/ }),
    row({ name: 'JSON string', body: '"hello"', expectStatus: 400, expectMessage: /expected object, received string/ }),
    row({ name: 'prototype-poisoning key', body: '{"__proto__":{"role":"admin"}}', expectStatus: 400, expectMessage: /JSON/ }),
    // Text PostgreSQL cannot store, and nesting that overflowed a recursive walk: 500s before (http/json-input.ts).
    row({ name: 'a lone surrogate', body: '{"x":"\\udc00"}', expectStatus: 400, expectMessage: /^x: must be well-formed Unicode text/ }),
    row({
      name: 'nested 5,000 deep',
      body: deep(5_000),
      expectStatus: 400,
      expectMessage: /^Request body is nested too deeply \(at most 64 levels\)$/,
    }),
    row({ name: `body over the ${limit / KiB} KiB limit`, body: oversize(limit), expectStatus: 413, expectMessage: /too large/i }),
  ];
}
