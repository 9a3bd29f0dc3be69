/**
 * The table's rows for queries and path parameters: history, members, shares, breach reports, the
 * decoys and P2P (member-route-rows.ts has the rest).
 */
import { randomUUID } from 'node:crypto';
import { limits } from '@enclave/protocol';
import { bodyBasics, hostBody, KiB, oversize, upper, type Fixture, type Row } from './table';

/** The decoys' body limit (server/src/security/routes.ts). */
const DECOY_BODY_LIMIT = 4 * KiB;
const vector = {
  type: 'debugger_detected',
  severity: 'high',
  description: 'debugger statement took 240 ms',
  timestamp: '2026-01-01T00:00:00.000Z',
};
/** A well-formed breach report. */
const breachBody = () => ({
  reason: 'tamper detected',
  timestamp: '2026-01-01T00:00:00.000Z',
  threatVectors: [vector],
  securityMetrics: { threatLevel: 40, detections: 1 },
});
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
      [
        'a vector type that is not a type name',
        { ...breachBody(), threatVectors: [{ ...vector, type: 'DROP TABLE' }] },
        /threatVectors\.0\.type: must be a lower-case type name/,
      ],
      [
        "a vector severity 'extreme'",
        { ...breachBody(), threatVectors: [{ ...vector, severity: 'extreme' }] },
        /threatVectors\.0\.severity: /,
      ],
      ['21 vectors', { ...breachBody(), threatVectors: Array.from({ length: 21 }, () => vector) }, /threatVectors: Too big/],
      [
        'threatLevel 101',
        { ...breachBody(), securityMetrics: { threatLevel: 101, detections: 1 } },
        /securityMetrics\.threatLevel: Too big/,
      ],
      ['timestamp not a date', { ...breachBody(), timestamp: 'yesterday' }, /timestamp: /],
      ['a field naming another account', { ...breachBody(), userId: randomUUID() }, /Unrecognized key.*"userId"/],
      [
        'a reported address that is not one',
        { ...breachBody(), addresses: { publicIP: 'example.org' } },
        /addresses\.publicIP: must be an IP address/,
      ],
      ['a reason with a lone surrogate', { ...breachBody(), reason: 'tamper \udc00' }, /^reason: must be well-formed Unicode text/],
      [
        'a vector description with a lone surrogate',
        { ...breachBody(), threatVectors: [{ ...vector, description: '\ud800' }] },
        /^threatVectors\.0\.description: must be well-formed Unicode text/,
      ],
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
    const row = (r: Omit<Row, 'method' | 'path' | 'as'>): Row => ({
      ...r,
      name: `POST ${route} — ${r.name}`,
      method: 'POST',
      path,
      as: 'anonymous',
    });
    return [
      row({ name: 'non-JSON text as application/json', body: '{"decoy":', expectStatus: 400, expectMessage: /not valid JSON/i }),
      row({
        name: 'text/plain content type',
        body: '{}',
        contentType: 'text/plain',
        expectStatus: 415,
        expectMessage: /Content-Type must be application\/json/,
      }),
      row({ name: 'body over the 4 KiB limit', body: oversize(DECOY_BODY_LIMIT), expectStatus: 413, expectMessage: /too large/i }),
    ];
  }),
  {
    name: 'GET /api/decoy/* — a path over 512 characters',
    as: 'anonymous',
    method: 'GET',
    path: `/api/decoy/${'a'.repeat(513)}`,
    expectStatus: 400,
    expectMessage: /\*: Too big/,
  },

  // ------------------------------------------------------------ the P2P network (member)
  ...bodyBasics('POST /api/p2p/host', 'member'),
  ...(
    [
      ['nodeType other than community_host', { ...hostBody, nodeType: 'relay' }, /nodeType: /],
      ['maxConnections 51', { ...hostBody, maxConnections: 51 }, /maxConnections: Too big/],
      ['maxConnections 0', { ...hostBody, maxConnections: 0 }, /maxConnections: Too small/],
      ['a location over 64 characters', { ...hostBody, location: 'x'.repeat(65) }, /location: Too big/],
      ['an empty location', { ...hostBody, location: '  ' }, /location: Please enter a location label/],
      [
        'a capability that is not a short name',
        { ...hostBody, capabilities: ['DROP TABLE'] },
        /capabilities\.0: must be a short lower-case name/,
      ],
      ['9 capabilities', { ...hostBody, capabilities: Array.from({ length: 9 }, (_, i) => `c${i}`) }, /capabilities: Too big/],
      ['publishAddress not a boolean', { ...hostBody, publishAddress: 'yes' }, /publishAddress: /],
      ['an address of its own choosing', { ...hostBody, ipAddress: '203.0.113.9' }, /Unrecognized key.*"ipAddress"/],
    ] as const
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/p2p/host — ${name}`,
    method: 'POST',
    path: '/api/p2p/host',
    body,
    expectStatus: 400,
    expectMessage,
  })),
  {
    name: 'POST /api/p2p/connect/:id — an id that is not a uuid',
    method: 'POST',
    path: '/api/p2p/connect/42',
    expectStatus: 400,
    expectMessage: /id: must be a node id/,
  },
  {
    name: 'POST /api/auth/sessions/:id/revoke — an id that is not a uuid',
    method: 'POST',
    path: '/api/auth/sessions/42/revoke',
    expectStatus: 400,
    expectMessage: /id: must be a session id/,
  },
  {
    name: "POST /api/auth/sessions/:id/revoke — the token's hash instead of the id",
    method: 'POST',
    path: `/api/auth/sessions/${'a'.repeat(64)}/revoke`,
    expectStatus: 400,
    expectMessage: /id: must be a session id/,
  },
  {
    name: 'POST /api/auth/sessions/:id/revoke — a session that does not exist',
    method: 'POST',
    path: () => `/api/auth/sessions/${randomUUID()}/revoke`,
    expectStatus: 404,
    expectMessage: /^No such session$/,
  },
  {
    name: "POST /api/auth/sessions/:id/revoke — another member's session, answered as unknown",
    method: 'POST',
    path: (f) => `/api/auth/sessions/${f.bobSessionId}/revoke`,
    expectStatus: 404,
    expectMessage: /^No such session$/,
  },
  {
    name: 'POST /api/p2p/connect/:id — a node that does not exist',
    method: 'POST',
    path: () => `/api/p2p/connect/${randomUUID()}`,
    expectStatus: 404,
    expectMessage: /^No such node$/,
  },
];
