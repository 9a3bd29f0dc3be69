/**
 * The table's rows for queries, path parameters, uploads and everything else: history, members,
 * shares, breach reports, the decoys, P2P, attachments, disappearing messages and deletion, and
 * every member route signed out.
 */
import { randomUUID } from 'node:crypto';
import { limits } from '@enclave/protocol';
import { bodyBasics, EPOCH_BODY_LIMIT, hostBody, KiB, oversize, upper, type Fixture, type Row } from './table';

/** A body an upload accepts: bytes (32 here, sent as text), as application/octet-stream. */
const BYTES = 'y'.repeat(32);
const OCTETS = 'application/octet-stream';
/** The decoys' body limit (server/src/security/routes.ts). */
const DECOY_BODY_LIMIT = 4 * KiB;
const vector = { type: 'debugger_detected', severity: 'high', description: 'debugger statement took 240 ms', timestamp: '2026-01-01T00:00:00.000Z' };
/** A well-formed breach report. */
const breachBody = () => ({ reason: 'tamper detected', timestamp: '2026-01-01T00:00:00.000Z', threatVectors: [vector], securityMetrics: { threatLevel: 40, detections: 1 } });
const uuids = (n: number) => Array.from({ length: n }, () => randomUUID()).join(',');

export const routeRows: Row[] = [
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
