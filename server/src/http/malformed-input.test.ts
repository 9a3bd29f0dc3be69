/**
 * Malformed input, everywhere (docs/security.md §6): every endpoint and WebSocket frame type answers
 * wrong types, missing or extra fields, oversize bodies, non-JSON and 501-character messages with a
 * 4xx and a clear message — never a 500, never a dropped connection.
 *
 * One table drives the HTTP part; each row names the caller, the request and the answer expected.
 */
import { randomUUID } from 'node:crypto';
import {
  createAccount,
  createEpoch,
  deriveLoginKey,
  encryptMessage,
  generateAccessToken,
  toBase64,
  type Epoch,
  type EpochShareUpload,
} from '@enclave/crypto';
import {
  conversationIdFor,
  conversationMembersResponseSchema,
  errorResponseSchema,
  errorTexts,
  limits,
  messageEnvelopeSchema,
  sessionsResponseSchema,
  type ServerFrame,
} from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeAccess } from '../access/policy';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

// ---------------------------------------------------------------- the fixture rows draw on

type Fixture = {
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

type Who = 'member' | 'anonymous' | 'forged-cookie';

type Row = {
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

const KiB = 1024;
/** A body an upload accepts: bytes (32 here, sent as text), as application/octet-stream. */
const BYTES = 'y'.repeat(32);
const OCTETS = 'application/octet-stream';
const JSON_BODY_LIMIT = 64 * KiB;
/** POST /api/epochs alone takes large bodies (one share per channel member). */
// The epoch route takes one share per member of the channel (server/src/messages/routes.ts).
const EPOCH_BODY_LIMIT = limits.epochMaxRecipients * 640;

/** `{"a":[[…]]}`: `levels` objects and arrays, one inside the other. */
const deep = (levels: number) => `{"a":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`;

/** A syntactically valid JSON object just over `limit` bytes. */
const oversize = (limit: number) => JSON.stringify({ pad: 'x'.repeat(limit) });

const upper = (id: string) => id.toUpperCase();

/** The decoys' body limit (server/src/security/routes.ts). */
const DECOY_BODY_LIMIT = 4 * KiB;
const vector = { type: 'debugger_detected', severity: 'high', description: 'debugger statement took 240 ms', timestamp: '2026-01-01T00:00:00.000Z' };
/** A well-formed P2P host request. */
const hostBody = { nodeType: 'community_host', capabilities: ['chat'], maxConnections: 10, location: 'Berlin' };
/** A well-formed breach report. */
const breachBody = () => ({ reason: 'tamper detected', timestamp: '2026-01-01T00:00:00.000Z', threatVectors: [vector], securityMetrics: { threatLevel: 40, detections: 1 } });
const uuids = (n: number) => Array.from({ length: n }, () => randomUUID()).join(',');

/** What every body-taking route must refuse the same way, whatever its schema. */
function bodyBasics(route: string, who: Who, limit = JSON_BODY_LIMIT): Row[] {
  const [method, path] = route.split(' ') as ['POST', string];
  const row = (r: Omit<Row, 'method' | 'path' | 'as'>): Row => ({ ...r, name: `${route} — ${r.name}`, method, path, as: who });
  return [
    row({ name: 'non-JSON text as application/json', body: '{"not": json', expectStatus: 400, expectMessage: /not valid JSON/i }),
    row({ name: 'JSON cut short', body: '{"a":', expectStatus: 400, expectMessage: /not valid JSON/i }),
    row({ name: 'text/plain content type', body: '{}', contentType: 'text/plain', expectStatus: 415, expectMessage: /Content-Type must be application\/json/ }),
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
    row({ name: 'nested 5,000 deep', body: deep(5_000), expectStatus: 400, expectMessage: /^Request body is nested too deeply \(at most 64 levels\)$/ }),
    row({ name: `body over the ${limit / KiB} KiB limit`, body: oversize(limit), expectStatus: 413, expectMessage: /too large/i }),
  ];
}

const rows: Row[] = [
  // ------------------------------------------------------------ POST /api/keys/validate (public)
  ...bodyBasics('POST /api/keys/validate', 'anonymous'),
  ...(
    [
      ['inviteKey of the wrong type', { inviteKey: 42 }, /inviteKey: .*expected string, received number/],
      ['inviteKey missing', {}, /inviteKey: .*expected string, received undefined/],
      ['an extra field', { inviteKey: 'a'.repeat(64), extra: true }, /Unrecognized key.*"extra"/],
      ['inviteKey over 256 characters', { inviteKey: 'a'.repeat(257) }, /inviteKey: Too big/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/keys/validate — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/keys/validate',
    body,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/auth/register (public)
  ...bodyBasics('POST /api/auth/register', 'anonymous'),
  ...(
    [
      ['username of the wrong type', (f: Fixture) => ({ ...f.registerBody(), username: 5 }), 400, /username: .*expected string, received number/],
      ['loginKey of the wrong type', (f: Fixture) => ({ ...f.registerBody(), loginKey: true }), 400, /loginKey: .*expected string, received boolean/],
      ['public keys of the wrong type', (f: Fixture) => ({ ...f.registerBody(), encryptionPublicKey: ['x'] }), 400, /encryptionPublicKey: .*expected string, received array/],
      ['every field missing', {}, 400, /inviteKey: .*username: .*loginKey: /],
      ['encryptedPrivateKey missing', (f: Fixture) => ({ ...f.registerBody(), encryptedPrivateKey: undefined }), 400, /encryptedPrivateKey: .*expected string, received undefined/],
      ['an extra field (the access token itself)', (f: Fixture) => ({ ...f.registerBody(), accessToken: 'a'.repeat(64) }), 400, /Unrecognized key.*"accessToken"/],
      ['invite key in upper case', (f: Fixture) => ({ ...f.registerBody(), inviteKey: upper(f.freshKey) }), 400, /inviteKey: Please enter a valid 64-character access key/],
      ['username with a space and "!"', (f: Fixture) => ({ ...f.registerBody(), username: 'bad name!' }), 400, /Username may contain letters, digits, dot, dash and underscore only/],
      ['username of 33 characters', (f: Fixture) => ({ ...f.registerBody(), username: 'u'.repeat(33) }), 400, /Username must be at most 32 characters/],
      ['username empty', (f: Fixture) => ({ ...f.registerBody(), username: '   ' }), 400, /Please enter a username/],
      ['loginKey of 63 characters', (f: Fixture) => ({ ...f.registerBody(), loginKey: 'a'.repeat(63) }), 400, /loginKey: must be 64 lowercase hexadecimal characters/],
      ['public key that is not base64', (f: Fixture) => ({ ...f.registerBody(), signingPublicKey: '!'.repeat(124) }), 400, /signingPublicKey: must be base64/],
      ['key bundle too short', (f: Fixture) => ({ ...f.registerBody(), encryptedPrivateKey: 'AAAA' }), 400, /encryptedPrivateKey: must be an encrypted key bundle/],
      ['the reserved username', (f: Fixture) => ({ ...f.registerBody(), username: 'ADMIN' }), 409, /This username is reserved/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/auth/register — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/auth/register',
    body,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/auth/login (public)
  ...bodyBasics('POST /api/auth/login', 'anonymous'),
  ...(
    [
      ['loginKey of the wrong type', { loginKey: 123 }, /loginKey: .*expected string, received number/],
      ['loginKey missing', {}, /loginKey: .*expected string, received undefined/],
      ['an extra field (the access token itself)', { loginKey: 'a'.repeat(64), accessToken: 'b'.repeat(64) }, /Unrecognized key.*"accessToken"/],
      ['loginKey in upper case', { loginKey: 'A'.repeat(64) }, /loginKey: must be 64 lowercase hexadecimal characters/],
      ['loginKey of 65 characters', { loginKey: 'a'.repeat(65) }, /loginKey: must be 64 lowercase hexadecimal characters/],
      ['browserId in upper case', { loginKey: 'a'.repeat(64), browserId: 'A'.repeat(32) }, /browserId: must be 32 lowercase hexadecimal characters/],
      ['browserId of 31 characters', { loginKey: 'a'.repeat(64), browserId: 'a'.repeat(31) }, /browserId: must be 32 lowercase hexadecimal characters/],
      ['browserId of the wrong type', { loginKey: 'a'.repeat(64), browserId: 12345 }, /browserId: .*expected string, received number/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/auth/login — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/auth/login',
    body,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/epochs (member)
  ...bodyBasics('POST /api/epochs', 'member', EPOCH_BODY_LIMIT),
  ...(
    [
      ['membershipVersion of the wrong type', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: '0' }), 400, /membershipVersion: .*expected number, received string/],
      ['shares of the wrong type', (f: Fixture) => ({ ...f.epochBody(), shares: {} }), 400, /shares: .*expected array, received object/],
      ['shares missing', (f: Fixture) => ({ ...f.epochBody(), shares: undefined }), 400, /shares: .*expected array, received undefined/],
      ['every field missing', {}, 400, /epochId: .*receiverId: .*membershipVersion: .*shares: /],
      ['an extra field (a chain key)', (f: Fixture) => ({ ...f.epochBody(), chainKey: 'AAAA' }), 400, /Unrecognized key.*"chainKey"/],
      ['an extra field inside a share', (f: Fixture) => { const b = f.epochBody(); b.shares[0] = { ...b.shares[0], extra: 1 }; return b; }, 400, /shares\.0: Unrecognized key.*"extra"/],
      ['no shares at all', (f: Fixture) => ({ ...f.epochBody(), shares: [] }), 400, /shares: Too small/],
      ["receiverId 'everyone'", (f: Fixture) => ({ ...f.epochBody(), receiverId: 'everyone' }), 400, /receiverId: /],
      ['epochId not a uuid', (f: Fixture) => ({ ...f.epochBody(), epochId: 'epoch-1' }), 400, /epochId: must be an epoch id/],
      ['membershipVersion -1', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: -1 }), 400, /membershipVersion: Too small/],
      ['membershipVersion 1.5', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: 1.5 }), 400, /membershipVersion: .*expected int/],
      ['wrappedKey not base64', (f: Fixture) => { const b = f.epochBody(); b.shares[0] = { ...b.shares[0], wrappedKey: '*'.repeat(344) }; return b; }, 400, /shares\.0\.wrappedKey: must be base64/],
      ['signature too short', (f: Fixture) => { const b = f.epochBody(); b.shares[0] = { ...b.shares[0], signature: 'AAAA' }; return b; }, 400, /shares\.0\.signature: must be a signature/],
      ['recipientId not a uuid', (f: Fixture) => { const b = f.epochBody(); b.shares[0] = { ...b.shares[0], recipientId: 'bob' }; return b; }, 400, /shares\.0\.recipientId: must be a user id/],
      ['receiverId is the caller', (f: Fixture) => ({ ...f.epochBody(), receiverId: f.alice.id }), 400, /You cannot message yourself/],
      ['receiverId is the caller, in upper case', (f: Fixture) => ({ ...f.epochBody(), receiverId: upper(f.alice.id) }), 400, /You cannot message yourself/],
      ['receiverId an unknown member', (f: Fixture) => ({ ...f.epochBody(), receiverId: randomUUID() }), 404, /No such member/],
      ['a stale membershipVersion', (f: Fixture) => ({ ...f.epochBody(), membershipVersion: f.epochBody().membershipVersion - 1 }), 409, /members of this conversation changed/],
      ['shares missing a member', (f: Fixture) => ({ ...f.epochBody(), shares: f.epochBody().shares.slice(1) }), 409, /members of this conversation changed/],
      ['an epoch id already taken', (f: Fixture) => ({ ...f.epochBody(), epochId: f.epochId }), 409, /This epoch already exists/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/epochs — ${name}`,
    method: 'POST',
    path: '/api/epochs',
    body,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/messages/send (member)
  ...bodyBasics('POST /api/messages/send', 'member'),
  ...(
    [
      ['index of the wrong type', async (f: Fixture) => ({ ...(await f.sendBody()), index: '0' }), 400, /index: .*expected number, received string/],
      ['receiverId of the wrong type', async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: 5 }), 400, /receiverId: /],
      ['encryptedContent of the wrong type', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: { v: 1 } }), 400, /encryptedContent: .*expected string, received object/],
      ['encryptedContent missing', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: undefined }), 400, /encryptedContent: .*expected string, received undefined/],
      ['every field missing', {}, 400, /receiverId: .*epochId: .*index: .*encryptedContent: .*messageType: /],
      ['an extra field (the plaintext)', async (f: Fixture) => ({ ...(await f.sendBody()), plaintext: 'hello' }), 400, /Unrecognized key.*"plaintext"/],
      ["messageType 'image'", async (f: Fixture) => ({ ...(await f.sendBody()), messageType: 'image' }), 400, /messageType: /],
      ['encryptedContent empty', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: '' }), 400, /Message is empty/],
      ['encryptedContent not JSON', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: 'hello in clear' }), 400, /encryptedContent is not a message envelope/],
      ['encryptedContent a JSON array', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: '[]' }), 400, /expected object, received array/],
      ['envelope with an extra field', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ extra: 'x' }) }), 400, /Unrecognized key.*"extra"/],
      ['envelope of version 3', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ v: 3 }) }), 400, /\bv: /],
      ['envelope without a signature', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ sig: undefined }) }), 400, /sig: /],
      ['envelope iv of 8 bytes', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ iv: toBase64(new Uint8Array(8)) }) }), 400, /iv: /],
      ['envelope ct not base64', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ ct: '!!!!' }) }), 400, /ct: must be canonical base64/],
      // The crypto package parses envelopes "as strictly as the server does": canonical base64, a
      // 12-byte IV and a ciphertext at least one GCM tag long. Anything else can never be opened.
      ['envelope iv that decodes to 11 bytes', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ iv: 'AAAAAAAAAAAAAAA=' }) }), 400, /iv/],
      ['envelope ct shorter than a GCM tag', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ ct: '' }) }), 400, /ct/],
      ['envelope ct in non-canonical base64', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: await f.envelopeWith({ ct: toBase64(new Uint8Array(40)).replace(/=+$/, '') }) }), 400, /ct/],
      [
        'a real envelope whose ciphertext is that of a 501-character message',
        async (f: Fixture) => {
          // 500 × '€' is the largest legal message: 1,500 UTF-8 bytes + a 16-byte tag. One more
          // character is 3 more bytes; encryptMessage itself refuses to make it, so graft them on.
          const body = await f.sendBody('€'.repeat(limits.messageMaxChars));
          const env = messageEnvelopeSchema.parse(JSON.parse(String(body.encryptedContent)));
          const ct = Buffer.concat([Buffer.from(env.ct, 'base64'), Buffer.from('€')]);
          expect(ct.length).toBe(limits.messageMaxChars * 3 + 16 + 3);
          return { ...body, encryptedContent: JSON.stringify({ ...env, ct: ct.toString('base64') }) };
        },
        400,
        new RegExp(`^${errorTexts.messageTooLong}$`),
      ],
      ['encryptedContent over the envelope ceiling', async (f: Fixture) => ({ ...(await f.sendBody()), encryptedContent: 'x'.repeat(limits.envelopeMaxBytes + 1) }), 400, new RegExp(errorTexts.messageTooLong)],
      ['index 100', async (f: Fixture) => ({ ...(await f.sendBody()), index: 100 }), 400, /index: Too big/],
      ['index -1', async (f: Fixture) => ({ ...(await f.sendBody()), index: -1 }), 400, /index: Too small/],
      ['index 1.5', async (f: Fixture) => ({ ...(await f.sendBody()), index: 1.5 }), 400, /index: .*expected int/],
      ["receiverId 'everyone'", async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: 'everyone' }), 400, /receiverId: /],
      ['receiverId is the caller', async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: f.alice.id }), 400, /You cannot message yourself/],
      ['receiverId an unknown member', async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: randomUUID() }), 404, /No such member/],
      ['epochId not a uuid', async (f: Fixture) => ({ ...(await f.sendBody()), epochId: 'epoch-1' }), 400, /epochId: must be an epoch id/],
      ['epochId unknown', async (f: Fixture) => ({ ...(await f.sendBody()), epochId: randomUUID() }), 400, /Unknown epoch for this conversation/],
      ['the general epoch used for a direct message', async (f: Fixture) => ({ ...(await f.sendBody()), receiverId: f.bob.id }), 400, /Unknown epoch for this conversation/],
      ['a replayed (epochId, index)', async (f: Fixture) => ({ ...(await f.sendBody()), index: f.stored.index }), 409, /already used/],
    ] as const
  ).map(([name, body, expectStatus, expectMessage]): Row => ({
    name: `POST /api/messages/send — ${name}`,
    method: 'POST',
    path: '/api/messages/send',
    body,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ GET /api/messages/recent (member)
  ...(
    [
      ['receiverId=xyz', '?receiverId=xyz', 400, /receiverId: /],
      ['receiverId missing', '', 400, /receiverId: /],
      ['receiverId twice', '?receiverId=all&receiverId=all', 400, /receiverId: /],
      ['limit=0', '?receiverId=all&limit=0', 400, /limit: Too small/],
      ['limit=abc', '?receiverId=all&limit=abc', 400, /limit: /],
      ['limit=201', '?receiverId=all&limit=201', 400, /limit: Too big/],
      ['before=-1', '?receiverId=all&before=-1', 400, /before: Too small/],
      ['before=1.5', '?receiverId=all&before=1.5', 400, /before: .*expected int/],
      ['after=abc', '?receiverId=all&after=abc', 400, /after: /],
      ['an unknown parameter', '?receiverId=all&sort=desc', 400, /Unrecognized key.*"sort"/],
      ['receiverId is the caller', (f: Fixture) => `?receiverId=${f.alice.id}`, 400, /You cannot message yourself/],
      ['receiverId is the caller, in upper case', (f: Fixture) => `?receiverId=${upper(f.alice.id)}`, 400, /You cannot message yourself/],
      ['receiverId an unknown member', () => `?receiverId=${randomUUID()}`, 404, /No such member/],
    ] as const
  ).map(([name, query, expectStatus, expectMessage]): Row => ({
    name: `GET /api/messages/recent — ${name}`,
    method: 'GET',
    path: typeof query === 'string' ? `/api/messages/recent${query}` : (f) => `/api/messages/recent${query(f)}`,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ GET /api/conversations/members (member)
  ...(
    [
      ['receiverId missing', '', 400, /receiverId: /],
      ['receiverId not a user id', '?receiverId=bob', 400, /receiverId: /],
      ['receiverId empty', '?receiverId=', 400, /receiverId: /],
      ['an unknown parameter', '?receiverId=all&x=1', 400, /Unrecognized key.*"x"/],
      ['receiverId is the caller', (f: Fixture) => `?receiverId=${f.alice.id}`, 400, /You cannot message yourself/],
      ['receiverId is the caller, in upper case', (f: Fixture) => `?receiverId=${upper(f.alice.id)}`, 400, /You cannot message yourself/],
      ['receiverId an unknown member', () => `?receiverId=${randomUUID()}`, 404, /No such member/],
    ] as const
  ).map(([name, query, expectStatus, expectMessage]): Row => ({
    name: `GET /api/conversations/members — ${name}`,
    method: 'GET',
    path: typeof query === 'string' ? `/api/conversations/members${query}` : (f) => `/api/conversations/members${query(f)}`,
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ GET /api/epochs/shares (member)
  ...(
    [
      ['ids missing', '', /ids: .*expected string, received undefined/],
      ['ids empty', '?ids=', /ids\.0: must be an epoch id/],
      ['ids not uuids', '?ids=abc,def', /ids\.0: must be an epoch id; ids\.1: must be an epoch id/],
      ['ids twice', `?ids=${randomUUID()}&ids=${randomUUID()}`, /ids: .*expected string, received array/],
      [`${limits.sharesMaxEpochs + 1} ids`, `?ids=${uuids(limits.sharesMaxEpochs + 1)}`, /ids: Too big/],
      ['an unknown parameter', `?ids=${randomUUID()}&all=1`, /Unrecognized key.*"all"/],
    ] as const
  ).map(([name, query, expectMessage]): Row => ({
    name: `GET /api/epochs/shares — ${name}`,
    method: 'GET',
    path: `/api/epochs/shares${query}`,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/security/breach (public)
  ...bodyBasics('POST /api/security/breach', 'anonymous'),
  ...(
    [
      ['reason missing', { ...breachBody(), reason: undefined }, /reason: .*expected string, received undefined/],
      ['threatVectors of the wrong type', { ...breachBody(), threatVectors: {} }, /threatVectors: .*expected array, received object/],
      ['a vector type that is not a type name', { ...breachBody(), threatVectors: [{ ...vector, type: 'DROP TABLE' }] }, /threatVectors\.0\.type: must be a lower-case type name/],
      ["a vector severity 'extreme'", { ...breachBody(), threatVectors: [{ ...vector, severity: 'extreme' }] }, /threatVectors\.0\.severity: /],
      ['21 vectors', { ...breachBody(), threatVectors: Array.from({ length: 21 }, () => vector) }, /threatVectors: Too big/],
      ['threatLevel 101', { ...breachBody(), securityMetrics: { threatLevel: 101, detections: 1 } }, /securityMetrics\.threatLevel: Too big/],
      ['timestamp not a date', { ...breachBody(), timestamp: 'yesterday' }, /timestamp: /],
      ['a field naming another account', { ...breachBody(), userId: randomUUID() }, /Unrecognized key.*"userId"/],
      ['a reported address that is not one', { ...breachBody(), addresses: { publicIP: 'example.org' } }, /addresses\.publicIP: must be an IP address/],
      ['a reason with a lone surrogate', { ...breachBody(), reason: 'tamper \udc00' }, /^reason: must be well-formed Unicode text/],
      ['a vector description with a lone surrogate', { ...breachBody(), threatVectors: [{ ...vector, description: '\ud800' }] }, /^threatVectors\.0\.description: must be well-formed Unicode text/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/security/breach — ${name}`,
    as: 'anonymous',
    method: 'POST',
    path: '/api/security/breach',
    body,
    expectStatus: 400,
    expectMessage,
  })),

  // ------------------------------------------------------------ the decoys (public, any body)
  ...(['/api/decoy/auth', '/api/decoy/validate', '/api/decoy/decrypt', '/api/decoy/*'] as const).flatMap((route): Row[] => {
    const path = route.replace('*', 'admin/export');
    const row = (r: Omit<Row, 'method' | 'path' | 'as'>): Row => ({ ...r, name: `POST ${route} — ${r.name}`, method: 'POST', path, as: 'anonymous' });
    return [
      row({ name: 'non-JSON text as application/json', body: '{"decoy":', expectStatus: 400, expectMessage: /not valid JSON/i }),
      row({ name: 'text/plain content type', body: '{}', contentType: 'text/plain', expectStatus: 415, expectMessage: /Content-Type must be application\/json/ }),
      row({ name: 'body over the 4 KiB limit', body: oversize(DECOY_BODY_LIMIT), expectStatus: 413, expectMessage: /too large/i }),
    ];
  }),
  { name: 'GET /api/decoy/* — a path over 512 characters', as: 'anonymous', method: 'GET', path: `/api/decoy/${'a'.repeat(513)}`, expectStatus: 400, expectMessage: /\*: Too big/ },

  // ------------------------------------------------------------ the P2P network (member)
  ...bodyBasics('POST /api/p2p/host', 'member'),
  ...(
    [
      ['nodeType other than community_host', { ...hostBody, nodeType: 'relay' }, /nodeType: /],
      ['maxConnections 51', { ...hostBody, maxConnections: 51 }, /maxConnections: Too big/],
      ['maxConnections 0', { ...hostBody, maxConnections: 0 }, /maxConnections: Too small/],
      ['a location over 64 characters', { ...hostBody, location: 'x'.repeat(65) }, /location: Too big/],
      ['an empty location', { ...hostBody, location: '  ' }, /location: Please enter a location label/],
      ['a capability that is not a short name', { ...hostBody, capabilities: ['DROP TABLE'] }, /capabilities\.0: must be a short lower-case name/],
      ['9 capabilities', { ...hostBody, capabilities: Array.from({ length: 9 }, (_, i) => `c${i}`) }, /capabilities: Too big/],
      ['publishAddress not a boolean', { ...hostBody, publishAddress: 'yes' }, /publishAddress: /],
      ['an address of its own choosing', { ...hostBody, ipAddress: '203.0.113.9' }, /Unrecognized key.*"ipAddress"/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({ name: `POST /api/p2p/host — ${name}`, method: 'POST', path: '/api/p2p/host', body, expectStatus: 400, expectMessage })),
  { name: 'POST /api/p2p/connect/:id — an id that is not a uuid', method: 'POST', path: '/api/p2p/connect/42', expectStatus: 400, expectMessage: /id: must be a node id/ },
  { name: 'POST /api/auth/sessions/:id/revoke — an id that is not a uuid', method: 'POST', path: '/api/auth/sessions/42/revoke', expectStatus: 400, expectMessage: /id: must be a session id/ },
  { name: "POST /api/auth/sessions/:id/revoke — the token's hash instead of the id", method: 'POST', path: `/api/auth/sessions/${'a'.repeat(64)}/revoke`, expectStatus: 400, expectMessage: /id: must be a session id/ },
  { name: 'POST /api/auth/sessions/:id/revoke — a session that does not exist', method: 'POST', path: () => `/api/auth/sessions/${randomUUID()}/revoke`, expectStatus: 404, expectMessage: /^No such session$/ },
  { name: "POST /api/auth/sessions/:id/revoke — another member's session, answered as unknown", method: 'POST', path: (f) => `/api/auth/sessions/${f.bobSessionId}/revoke`, expectStatus: 404, expectMessage: /^No such session$/ },
  { name: 'POST /api/p2p/connect/:id — a node that does not exist', method: 'POST', path: () => `/api/p2p/connect/${randomUUID()}`, expectStatus: 404, expectMessage: /^No such node$/ },

  // ------------------------------------------------------------ every member route, signed out
  ...(
    [
      ['POST', '/api/auth/logout', undefined],
      ['GET', '/api/auth/me', undefined],
      ['GET', '/api/users/all', undefined],
      ['GET', '/api/conversations/members?receiverId=all', undefined],
      ['POST', '/api/epochs', (f: Fixture) => f.epochBody()],
      ['GET', `/api/epochs/shares?ids=${randomUUID()}`, undefined],
      ['GET', '/api/messages/recent?receiverId=all', undefined],
      ['POST', '/api/messages/send', (f: Fixture) => f.sendBody()],
      ['GET', '/api/auth/sessions', undefined],
      ['POST', '/api/auth/sessions/revoke-others', undefined],
      ['POST', '/api/auth/sessions/revoke-all', undefined],
      ['GET', '/api/security/me', undefined],
      ['GET', '/api/p2p/nodes', undefined],
      ['POST', '/api/p2p/host', hostBody],
      ['DELETE', '/api/p2p/host', undefined],
      ['GET', '/api/p2p/config', undefined],
      ['POST', '/api/conversations/disappearing', { receiverId: 'all', seconds: 3600 }],
    ] as const
  ).flatMap(([method, path, body]): Row[] => [
    { name: `${method} ${path.split('?')[0]} — anonymous`, as: 'anonymous', method, path, body, expectStatus: 401, expectMessage: /^Not signed in$/ },
    { name: `${method} ${path.split('?')[0]} — forged session cookie`, as: 'forged-cookie', method, path, body, expectStatus: 401, expectMessage: /^Not signed in$/ },
  ]),
  { name: 'POST /api/auth/sessions/:id/revoke — anonymous', as: 'anonymous', method: 'POST', path: `/api/auth/sessions/${randomUUID()}/revoke`, expectStatus: 401, expectMessage: /^Not signed in$/ },
  { name: 'POST /api/auth/sessions/:id/revoke — forged session cookie', as: 'forged-cookie', method: 'POST', path: `/api/auth/sessions/${randomUUID()}/revoke`, expectStatus: 401, expectMessage: /^Not signed in$/ },
  { name: 'POST /api/p2p/connect/:id — anonymous', as: 'anonymous', method: 'POST', path: `/api/p2p/connect/${randomUUID()}`, expectStatus: 401, expectMessage: /^Not signed in$/ },
  // Refused before the body is even read.
  { name: 'POST /api/messages/send — anonymous, non-JSON body', as: 'anonymous', method: 'POST', path: '/api/messages/send', body: 'not json', expectStatus: 401, expectMessage: /^Not signed in$/ },
  { name: 'POST /api/epochs — anonymous, oversize body', as: 'anonymous', method: 'POST', path: '/api/epochs', body: oversize(EPOCH_BODY_LIMIT), expectStatus: 401, expectMessage: /^Not signed in$/ },

  // ------------------------------------------------------------ attachments (member)
  ...(
    [
      ['no receiverId', '/api/attachments', BYTES, OCTETS, 400, /receiverId/],
      ['a receiverId that is no member id', '/api/attachments?receiverId=nobody', BYTES, OCTETS, 400, /receiverId/],
      ['a member who does not exist', () => `/api/attachments?receiverId=${randomUUID()}`, BYTES, OCTETS, 404, /^No such member$/],
      ['to oneself', (f: Fixture) => `/api/attachments?receiverId=${f.alice.id}`, BYTES, OCTETS, 400, /^You cannot message yourself$/],
      ['JSON instead of bytes', '/api/attachments?receiverId=all', { a: 1 }, undefined, 415, /^Content-Type must be application\/octet-stream$/],
      ['text/plain content type', '/api/attachments?receiverId=all', BYTES, 'text/plain', 415, /^Content-Type must be application\/octet-stream$/],
      ['shorter than a GCM tag', '/api/attachments?receiverId=all', 'x'.repeat(15), OCTETS, 400, /16-byte tag/],
      ['an empty body', '/api/attachments?receiverId=all', '', OCTETS, 400, /16-byte tag/],
      ['over the 10 MB limit', '/api/attachments?receiverId=all', 'x'.repeat(limits.attachmentCiphertextMaxBytes + 1), OCTETS, 413, /^File exceeds the 10 MB limit$/],
    ] as const
  ).map(([name, path, body, contentType, expectStatus, expectMessage]): Row => ({
    name: `POST /api/attachments — ${name}`,
    method: 'POST',
    path,
    body,
    ...(contentType ? { contentType } : {}),
    expectStatus,
    expectMessage,
  })),
  { name: 'POST /api/attachments — anonymous', as: 'anonymous', method: 'POST', path: '/api/attachments?receiverId=all', body: BYTES, contentType: OCTETS, expectStatus: 401, expectMessage: /^Not signed in$/ },
  { name: 'GET /api/attachments/:id — an id that is not a uuid', method: 'GET', path: '/api/attachments/42', expectStatus: 400, expectMessage: /id: must be an attachment id/ },
  { name: 'GET /api/attachments/:id — an attachment that does not exist', method: 'GET', path: () => `/api/attachments/${randomUUID()}`, expectStatus: 404, expectMessage: /^No such attachment$/ },
  { name: 'GET /api/attachments/:id — anonymous', as: 'anonymous', method: 'GET', path: `/api/attachments/${randomUUID()}`, expectStatus: 401, expectMessage: /^Not signed in$/ },

  // ------------------------------------------------------------ disappearing messages and deletion (member)
  ...bodyBasics('POST /api/conversations/disappearing', 'member'),
  ...(
    [
      ['seconds not one of the timers', { receiverId: 'all', seconds: 60 }, /seconds: must be one of 0, 3600, 86400, 604800 \(seconds\)/],
      ['seconds as a string', { receiverId: 'all', seconds: '3600' }, /seconds: must be one of/],
      ['no receiverId', { seconds: 3600 }, /receiverId/],
      ['a receiverId that is no member id', { receiverId: 'nobody', seconds: 3600 }, /receiverId/],
      ['an extra field', { receiverId: 'all', seconds: 3600, extra: true }, /Unrecognized key.*"extra"/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({ name: `POST /api/conversations/disappearing — ${name}`, method: 'POST', path: '/api/conversations/disappearing', body, expectStatus: 400, expectMessage })),
  {
    name: 'POST /api/conversations/disappearing — a member who does not exist',
    method: 'POST',
    path: '/api/conversations/disappearing',
    body: () => ({ receiverId: randomUUID(), seconds: 3600 }),
    expectStatus: 404,
    expectMessage: /^No such member$/,
  },
  {
    name: "POST /api/conversations/disappearing — the channel's timer, set by a member who is no admin",
    method: 'POST',
    path: '/api/conversations/disappearing',
    body: { receiverId: 'all', seconds: 3600 },
    expectStatus: 403,
    expectMessage: /^Only administrators can change disappearing messages in the general channel$/,
  },
  { name: 'DELETE /api/messages/:id — an id that is not a number', method: 'DELETE', path: '/api/messages/abc', expectStatus: 400, expectMessage: /id: / },
  { name: 'DELETE /api/messages/:id — id 0', method: 'DELETE', path: '/api/messages/0', expectStatus: 400, expectMessage: /id: / },
  { name: 'DELETE /api/messages/:id — past the largest safe integer', method: 'DELETE', path: `/api/messages/${'9'.repeat(20)}`, expectStatus: 400, expectMessage: /id: / },
  { name: 'DELETE /api/messages/:id — a message that does not exist', method: 'DELETE', path: '/api/messages/999999999', expectStatus: 404, expectMessage: /^No such message$/ },
  { name: 'DELETE /api/messages/:id — anonymous', as: 'anonymous', method: 'DELETE', path: '/api/messages/1', expectStatus: 401, expectMessage: /^Not signed in$/ },
  { name: 'DELETE /api/messages/:id — forged session cookie', as: 'forged-cookie', method: 'DELETE', path: '/api/messages/1', expectStatus: 401, expectMessage: /^Not signed in$/ },
  ...(
    [
      ['attachmentIds of an upload that does not exist', [randomUUID()], /^attachmentIds: not an attachment you uploaded/],
      ['attachmentIds empty', [], /attachmentIds/],
      ['two attachmentIds', [randomUUID(), randomUUID()], /attachmentIds/],
      ['an attachment id that is no uuid', ['42'], /attachmentIds.0: must be an attachment id/],
    ] as const
  ).map(([name, ids, expectMessage]): Row => ({
    name: `POST /api/messages/send — ${name}`,
    method: 'POST',
    path: '/api/messages/send',
    body: async (f: Fixture) => ({ ...(await f.sendBody()), attachmentIds: ids }),
    expectStatus: 400,
    expectMessage,
  })),
];

type Reply = { status: number; body: unknown };

/** A caller without a TestMember: no cookie, or a cookie that names no session. */
async function callWithout(baseUrl: string, who: Who, method: string, path: string, body: unknown, contentType?: string): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (who === 'forged-cookie') headers.cookie = `enclave_session=${'A'.repeat(43)}`;
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = contentType ?? 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(baseUrl + path, { method, headers, body: payload });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text: the assertion on the error schema will show it
  }
  return { status: res.status, body: parsed };
}

/** Routes that take no input (the health and readiness probes, the API's description), or are not API routes (the socket has its own table below). */
const NOT_IN_TABLE = new Set(['HEAD /api/health', 'GET /api/health', 'GET /api/ready', 'GET /api/openapi.json', 'GET /ws', 'GET /*', 'HEAD /*']);

describe('the malformed-input table', () => {
  it('covers every public and member API route of the authorization table', () => {
    // Every row's name starts with its "METHOD /path".
    const covered = new Set(rows.map((r) => r.name.split(' — ')[0]));
    // Administrator and creator routes have their own suites; this table is the member surface.
    const routes = Object.entries(routeAccess)
      .filter(([route, access]) => (access === 'public' || access === 'member') && !NOT_IN_TABLE.has(route))
      .map(([route]) => route);
    expect(routes.filter((r) => !covered.has(r))).toEqual([]);
    for (const r of rows) expect(r.expectStatus, r.name).toBeGreaterThanOrEqual(400);
    for (const r of rows) expect(r.expectStatus, r.name).toBeLessThan(500);
  });
});

describe.each(backends)('malformed HTTP input gets a clear 4xx (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let f: Fixture;

  beforeAll(async () => {
    const [k1, k2, k3] = await mintKeys(suite.database.db, { count: 3 });
    const alice = await TestMember.join(suite.server.url, k1!, 'alice');
    const bob = await TestMember.join(suite.server.url, k2!, 'bob');

    const token = generateAccessToken();
    const account = await createAccount(token);
    const registerBase = {
      inviteKey: k3!,
      username: 'newcomer',
      loginKey: await deriveLoginKey(token),
      ...account.publicIdentity,
      encryptedPrivateKey: account.encryptedPrivateKey,
    };

    // Alice's general-channel epoch, made and uploaded exactly as the client does.
    const m = conversationMembersResponseSchema.parse((await alice.request('GET', '/api/conversations/members?receiverId=all')).body);
    const made: { epoch: Epoch; shares: EpochShareUpload[] } = await createEpoch({
      conversationId: m.conversationId,
      senderId: alice.id,
      membershipVersion: m.membershipVersion,
      recipients: m.members,
      signKey: alice.identity.signKey,
    });
    const epochBody = () => ({
      epochId: randomUUID(),
      receiverId: 'all',
      membershipVersion: m.membershipVersion,
      shares: made.shares.map((s) => ({ ...s })) as Record<string, unknown>[],
    });
    const up = await alice.request('POST', '/api/epochs', { ...epochBody(), epochId: made.epoch.epochId });
    expect(up.status, JSON.stringify(up.body)).toBe(201);

    let nextIndex = 0;
    const envelope = (index: number, text: string) =>
      encryptMessage({ epoch: made.epoch, index, plaintext: text, signKey: alice.identity.signKey });
    const sendBody = async (text = 'hello') => {
      const index = nextIndex++;
      if (index >= limits.epochMaxMessages) throw new Error('the table outgrew one epoch');
      return { receiverId: 'all', epochId: made.epoch.epochId, index, encryptedContent: await envelope(index, text), messageType: 'text' };
    };
    const envelopeWith = async (over: Record<string, unknown>) => {
      const env = messageEnvelopeSchema.parse(JSON.parse(await envelope(nextIndex++, 'hello')));
      return JSON.stringify({ ...env, ...over });
    };

    // One message stored for real, for the replay row.
    const first = await sendBody();
    const sent = await alice.request('POST', '/api/messages/send', first);
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);

    f = {
      alice,
      bob,
      freshKey: k3!,
      registerBody: () => ({ ...registerBase }),
      epochBody,
      sendBody,
      envelopeWith,
      stored: { epochId: made.epoch.epochId, index: first.index },
      epochId: made.epoch.epochId,
      bobSessionId: sessionsResponseSchema.parse((await bob.request('GET', '/api/auth/sessions')).body).sessions[0]!.id,
    };
  });

  it('accepts the well-formed bodies the rows start from', async () => {
    expect((await f.alice.request('POST', '/api/epochs', f.epochBody())).status).toBe(201);
    const longest = await f.alice.request('POST', '/api/messages/send', await f.sendBody('€'.repeat(limits.messageMaxChars)));
    expect(longest.status, JSON.stringify(longest.body)).toBe(201);
    const valid = await callWithout(suite.server.url, 'anonymous', 'POST', '/api/keys/validate', { inviteKey: f.freshKey });
    expect(valid.body).toMatchObject({ valid: true });
    expect((await f.alice.request('POST', '/api/p2p/host', hostBody)).status).toBe(201);
  });

  for (const row of rows) it(`${row.name} → ${row.expectStatus}`, async () => {
    const path = typeof row.path === 'function' ? row.path(f) : row.path;
    const body = typeof row.body === 'function' ? await (row.body as (f: Fixture) => unknown)(f) : row.body;
    const who = row.as ?? 'member';
    const res =
      who === 'member'
        ? await f.alice.request(row.method, path, body, row.contentType ? { 'content-type': row.contentType } : {})
        : await callWithout(suite.server.url, who, row.method, path, body, row.contentType);
    expect(res.status, JSON.stringify(res.body)?.slice(0, 500)).toBe(row.expectStatus);
    const parsed = errorResponseSchema.safeParse(res.body);
    expect(parsed.success, `not an error body: ${JSON.stringify(res.body)?.slice(0, 500)}`).toBe(true);
    expect(parsed.data?.error).toMatch(row.expectMessage);
  });

  it('the invite key the register rows used is still unused', async () => {
    const res = await callWithout(suite.server.url, 'anonymous', 'POST', '/api/keys/validate', { inviteKey: f.freshKey });
    expect(res.body).toMatchObject({ valid: true });
  });

  it('names a direct message by one conversation id, whatever the case of the peer id', async () => {
    // An upper-case spelling of Bob's id is the same member: it must reach the same conversation
    // (or be refused), never open a second "dm:" conversation the protocol schema cannot parse.
    const res = await f.alice.request('GET', `/api/conversations/members?receiverId=${upper(f.bob.id)}`);
    if (res.status === 200) {
      expect(conversationMembersResponseSchema.parse(res.body).conversationId).toBe(conversationIdFor(f.alice.id, f.bob.id));
    } else {
      expect(res.status).toBe(400);
      expect(errorResponseSchema.parse(res.body).error).toMatch(/receiverId/);
    }
  });

  it('logged no error and answered no 5xx during the whole table', () => {
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
    expect(suite.server.logs.filter((l) => /"statusCode":5\d\d/.test(l))).toEqual([]);
  });
});

// ---------------------------------------------------------------- WebSocket frames

type FrameCase = { name: string; send: (s: TestSocket) => void; expectMessage: RegExp };

const frameCases: FrameCase[] = [
  { name: 'non-JSON text', send: (s) => s.send('hello'), expectMessage: /Frame is not valid JSON/ },
  { name: 'an empty text frame', send: (s) => s.send(''), expectMessage: /Frame is not valid JSON/ },
  { name: 'JSON of the wrong type: []', send: (s) => s.send('[]'), expectMessage: /Unknown or malformed frame/ },
  { name: 'JSON of the wrong type: 42', send: (s) => s.send('42'), expectMessage: /Unknown or malformed frame/ },
  { name: 'JSON null', send: (s) => s.send('null'), expectMessage: /Unknown or malformed frame/ },
  { name: 'an object without a type', send: (s) => s.send({}), expectMessage: /Unknown or malformed frame/ },
  { name: 'an unknown type', send: (s) => s.send({ type: 'subscribe', channel: 'general' }), expectMessage: /Unknown or malformed frame/ },
  { name: 'a type of the wrong type', send: (s) => s.send({ type: 42 }), expectMessage: /Unknown or malformed frame/ },
  {
    name: 'authenticate with an extra field (an access token)',
    send: (s) => s.send({ type: 'authenticate', accessToken: 'a'.repeat(64) }),
    expectMessage: /Unknown or malformed frame: Unrecognized key.*"accessToken"/,
  },
  { name: 'ping with an extra field', send: (s) => s.send({ type: 'ping', at: 1 }), expectMessage: /Unrecognized key.*"at"/ },
  {
    name: 'a binary frame',
    send: (s) => s.ws.send(Buffer.from(JSON.stringify({ type: 'ping' })), { binary: true }),
    expectMessage: /Frames must be JSON text of at most 40960 bytes/,
  },
  {
    name: 'a 41 KB frame',
    send: (s) => s.send({ type: 'ping', pad: 'x'.repeat(41 * 1024) }),
    expectMessage: /Frames must be JSON text of at most 40960 bytes/,
  },
  {
    name: 'a lone surrogate',
    send: (s) => s.send('{"type":"typing","conversationId":"\\udc00"}'),
    expectMessage: /^conversationId: must be well-formed Unicode text/,
  },
  { name: 'a NUL character', send: (s) => s.send({ type: 'p2p_close', connectionId: '\u0000' }), expectMessage: /^connectionId: must not contain the NUL character$/ },
  { name: 'nested 5,000 deep', send: (s) => s.send(`{"type":"ping","x":${deep(5_000)}}`), expectMessage: /^Frame is nested too deeply \(at most 64 levels\)$/ },
  {
    name: 'p2p_signal with an SDP over 16 KiB',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'offer', payload: 'v'.repeat(16 * 1024 + 1) } }),
    expectMessage: /Unknown or malformed frame: Too big/,
  },
  {
    name: 'p2p_signal with an ICE candidate of the wrong shape',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'ice', payload: { candidate: 1 } } }),
    expectMessage: /Unknown or malformed frame: .*expected string/,
  },
  {
    name: 'p2p_signal of an unknown kind',
    send: (s) => s.send({ type: 'p2p_signal', connectionId: randomUUID(), signal: { kind: 'bye', payload: '' } }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    name: 'p2p_close without a connection id',
    send: (s) => s.send({ type: 'p2p_close', connectionId: 'x' }),
    expectMessage: /Unknown or malformed frame: must be a connection id/,
  },
  {
    name: 'typing without a conversation id',
    send: (s) => s.send({ type: 'typing' }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    name: 'typing in something that is not a conversation id',
    send: (s) => s.send({ type: 'typing', conversationId: 'dm:x:y' }),
    expectMessage: /Unknown or malformed frame/,
  },
  {
    // Typing carries ids only: a draft's text has no field to travel in.
    name: 'typing with the text being typed',
    send: (s) => s.send({ type: 'typing', conversationId: 'general', text: 'draft' }),
    expectMessage: /Unrecognized key.*"text"/,
  },
];

describe('malformed WebSocket frames get an error frame and the socket stays open (pglite)', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let socket: TestSocket;

  beforeAll(async () => {
    [alice] = await suite.members('alice');
    socket = await alice.connect();
    expect(socket.frames).toContainEqual({ type: 'authenticated', userId: alice.id });
  });

  afterAll(async () => {
    socket?.close();
  });

  /** The first frame received after the `start`-th that matches. */
  const next = (s: TestSocket, start: number, match: (f: ServerFrame) => boolean) =>
    s.waitFor((fr) => s.frames.indexOf(fr) >= start && match(fr), 3000);

  for (const { name, send, expectMessage } of frameCases) it(name, async () => {
    const start = socket.frames.length;
    send(socket);
    const error = await next(socket, start, (fr) => fr.type === 'error');
    expect(error.type === 'error' && error.message).toMatch(expectMessage);
    // Still open and still served.
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
    const afterError = socket.frames.length;
    socket.send({ type: 'ping' });
    await next(socket, afterError, (fr) => fr.type === 'pong');
    expect(socket.ws.readyState).toBe(socket.ws.OPEN);
  });

  it('still authenticates the same socket after all of that', async () => {
    const start = socket.frames.length;
    socket.send({ type: 'authenticate' });
    expect(await next(socket, start, (fr) => fr.type === 'authenticated')).toEqual({ type: 'authenticated', userId: alice.id });
  });

  it('answers authenticate on a socket without a cookie with auth_failed, then closes it with 4001', async () => {
    const anon = new TestSocket(suite.server.url.replace(/^http/, 'ws') + '/ws', '', []);
    await anon.opened;
    anon.send({ type: 'authenticate' });
    const failed = await anon.waitFor((fr) => fr.type === 'auth_failed');
    expect(failed).toEqual({ type: 'auth_failed', message: 'Not signed in' });
    expect((await anon.closed).code).toBe(4001);
  });

  it('answers malformed frames on a socket without a cookie too, without closing it', async () => {
    const anon = new TestSocket(suite.server.url.replace(/^http/, 'ws') + '/ws', '', []);
    await anon.opened;
    anon.send('not json');
    expect(await anon.waitFor((fr) => fr.type === 'error')).toEqual({ type: 'error', message: 'Frame is not valid JSON' });
    anon.send({ type: 'ping' });
    await anon.waitFor((fr) => fr.type === 'pong');
    expect(anon.ws.readyState).toBe(anon.ws.OPEN);
    anon.close();
  });

  it('logged no error', () => {
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });

  it('closes a socket that sends a frame over the 1 MiB transport cap cleanly (1009), without logging an error', async () => {
    // Beyond maxPayload the ws library ends the connection itself; that close must at least be a
    // clean "message too big", and a client's oversize frame is not a server error.
    const logged = suite.server.logs.length;
    const big = await alice.connect();
    big.ws.send('x'.repeat(2 * 1024 * 1024));
    expect((await big.closed).code).toBe(1009);
    expect(suite.server.logs.slice(logged).filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
