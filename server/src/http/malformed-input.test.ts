/**
 * Malformed input, everywhere (docs/security.md §6): every endpoint answers wrong types, missing or
 * extra fields, oversize bodies, non-JSON and 501-character messages with a 4xx and a clear
 * message — never a 500. Socket frames have their own table (malformed-frames.test.ts).
 *
 * One table drives it (malformed-input/: body rows, route rows); each row names the caller, the
 * request and the answer expected.
 */
import { randomUUID } from 'node:crypto';
import {
  createAccount,
  createEpoch,
  deriveLoginKey,
  encryptMessage,
  generateAccessToken,
  type Epoch,
  type EpochShareUpload,
} from '@enclave/crypto';
import {
  conversationIdFor,
  conversationMembersResponseSchema,
  errorResponseSchema,
  limits,
  messageEnvelopeSchema,
  sessionsResponseSchema,
} from '@enclave/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeAccess } from '../access/policy';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { bodyRows } from './malformed-input/body-rows';
import { memberRouteRows } from './malformed-input/member-route-rows';
import { readReceiptRows } from './malformed-input/read-receipt-rows';
import { shareKeyRows } from './malformed-input/share-key-rows';
import { channelKeyRows } from './malformed-input/channel-key-rows';
import { pushRows } from './malformed-input/push-rows';
import { groupRows } from './malformed-input/group-rows';
import { routeRows } from './malformed-input/route-rows';
import { hostBody, upper, type Fixture, type Who } from './malformed-input/table';

const rows = [
  ...bodyRows,
  ...routeRows,
  ...memberRouteRows,
  ...readReceiptRows,
  ...pushRows,
  ...groupRows,
  ...shareKeyRows,
  ...channelKeyRows,
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
const NOT_IN_TABLE = new Set([
  'HEAD /api/health',
  'GET /api/health',
  'GET /api/ready',
  'GET /api/openapi.json',
  'GET /ws',
  'GET /*',
  'HEAD /*',
]);

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

  for (const row of rows)
    it(`${row.name} → ${row.expectStatus}`, async () => {
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
