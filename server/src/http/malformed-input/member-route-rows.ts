/**
 * The table's rows for every member route signed out, uploads (attachments), disappearing
 * messages and deletion, replies, reactions and edits.
 */
import { randomUUID } from 'node:crypto';
import { limits } from '@enclave/protocol';
import { bodyBasics, bodyRow, EPOCH_BODY_LIMIT, hostBody, oversize, type Fixture, type Row } from './table';

/** A body an upload accepts: bytes (32 here, sent as text), as application/octet-stream. */
const BYTES = 'y'.repeat(32);
const OCTETS = 'application/octet-stream';

export const memberRouteRows: Row[] = [
  // ------------------------------------------------------------ every member route, signed out
  ...(
    [
      ['POST', '/api/auth/logout', undefined],
      ['GET', '/api/auth/me', undefined],
      ['GET', '/api/users/all', undefined],
      ['POST', '/api/users/lookup', { ids: [randomUUID()] }],
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
    {
      name: `${method} ${path.split('?')[0]} — anonymous`,
      as: 'anonymous',
      method,
      path,
      body,
      expectStatus: 401,
      expectMessage: /^Not signed in$/,
    },
    {
      name: `${method} ${path.split('?')[0]} — forged session cookie`,
      as: 'forged-cookie',
      method,
      path,
      body,
      expectStatus: 401,
      expectMessage: /^Not signed in$/,
    },
  ]),
  {
    name: 'POST /api/auth/sessions/:id/revoke — anonymous',
    as: 'anonymous',
    method: 'POST',
    path: `/api/auth/sessions/${randomUUID()}/revoke`,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  {
    name: 'POST /api/auth/sessions/:id/revoke — forged session cookie',
    as: 'forged-cookie',
    method: 'POST',
    path: `/api/auth/sessions/${randomUUID()}/revoke`,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  {
    name: 'POST /api/p2p/connect/:id — anonymous',
    as: 'anonymous',
    method: 'POST',
    path: `/api/p2p/connect/${randomUUID()}`,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  // Refused before the body is even read.
  {
    name: 'POST /api/messages/send — anonymous, non-JSON body',
    as: 'anonymous',
    method: 'POST',
    path: '/api/messages/send',
    body: 'not json',
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  {
    name: 'POST /api/epochs — anonymous, oversize body',
    as: 'anonymous',
    method: 'POST',
    path: '/api/epochs',
    body: oversize(EPOCH_BODY_LIMIT),
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },

  // ------------------------------------------------------------ attachments (member)
  ...(
    [
      ['no receiverId', '/api/attachments', BYTES, OCTETS, 400, /receiverId/],
      ['a receiverId that is no member id', '/api/attachments?receiverId=nobody', BYTES, OCTETS, 400, /receiverId/],
      ['a member who does not exist', () => `/api/attachments?receiverId=${randomUUID()}`, BYTES, OCTETS, 404, /^No such member$/],
      ['to oneself', (f: Fixture) => `/api/attachments?receiverId=${f.alice.id}`, BYTES, OCTETS, 400, /^You cannot message yourself$/],
      [
        'JSON instead of bytes',
        '/api/attachments?receiverId=all',
        { a: 1 },
        undefined,
        415,
        /^Content-Type must be application\/octet-stream$/,
      ],
      [
        'text/plain content type',
        '/api/attachments?receiverId=all',
        BYTES,
        'text/plain',
        415,
        /^Content-Type must be application\/octet-stream$/,
      ],
      ['shorter than a GCM tag', '/api/attachments?receiverId=all', 'x'.repeat(15), OCTETS, 400, /16-byte tag/],
      ['an empty body', '/api/attachments?receiverId=all', '', OCTETS, 400, /16-byte tag/],
      [
        'over the 10 MB limit',
        '/api/attachments?receiverId=all',
        'x'.repeat(limits.attachmentCiphertextMaxBytes + 1),
        OCTETS,
        413,
        /^File exceeds the 10 MB limit$/,
      ],
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
  {
    name: 'POST /api/attachments — anonymous',
    as: 'anonymous',
    method: 'POST',
    path: '/api/attachments?receiverId=all',
    body: BYTES,
    contentType: OCTETS,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  {
    name: 'GET /api/attachments/:id — an id that is not a uuid',
    method: 'GET',
    path: '/api/attachments/42',
    expectStatus: 400,
    expectMessage: /id: must be an attachment id/,
  },
  {
    name: 'GET /api/attachments/:id — an attachment that does not exist',
    method: 'GET',
    path: () => `/api/attachments/${randomUUID()}`,
    expectStatus: 404,
    expectMessage: /^No such attachment$/,
  },
  {
    name: 'GET /api/attachments/:id — anonymous',
    as: 'anonymous',
    method: 'GET',
    path: `/api/attachments/${randomUUID()}`,
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },

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
  ).map(([name, body, expectMessage]): Row => ({
    name: `POST /api/conversations/disappearing — ${name}`,
    method: 'POST',
    path: '/api/conversations/disappearing',
    body,
    expectStatus: 400,
    expectMessage,
  })),
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
  {
    name: 'DELETE /api/messages/:id — an id that is not a number',
    method: 'DELETE',
    path: '/api/messages/abc',
    expectStatus: 400,
    expectMessage: /id: /,
  },
  { name: 'DELETE /api/messages/:id — id 0', method: 'DELETE', path: '/api/messages/0', expectStatus: 400, expectMessage: /id: / },
  {
    name: 'DELETE /api/messages/:id — past the largest safe integer',
    method: 'DELETE',
    path: `/api/messages/${'9'.repeat(20)}`,
    expectStatus: 400,
    expectMessage: /id: /,
  },
  {
    name: 'DELETE /api/messages/:id — a message that does not exist',
    method: 'DELETE',
    path: '/api/messages/999999999',
    expectStatus: 404,
    expectMessage: /^No such message$/,
  },
  {
    name: 'DELETE /api/messages/:id — anonymous',
    as: 'anonymous',
    method: 'DELETE',
    path: '/api/messages/1',
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  {
    name: 'DELETE /api/messages/:id — forged session cookie',
    as: 'forged-cookie',
    method: 'DELETE',
    path: '/api/messages/1',
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
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
  // ------------------------------------------------------------ replies, reactions and edits
  { name: 'GET /api/messages/:id — id 0', method: 'GET', path: '/api/messages/0', expectStatus: 400, expectMessage: /id: / },
  {
    name: 'GET /api/messages/:id — a message that does not exist',
    method: 'GET',
    path: '/api/messages/999999999',
    expectStatus: 404,
    expectMessage: /^No such message$/,
  },
  {
    name: 'GET /api/messages/:id — anonymous',
    as: 'anonymous',
    method: 'GET',
    path: '/api/messages/1',
    expectStatus: 401,
    expectMessage: /^Not signed in$/,
  },
  ...(
    [
      ['a targetId that is no message', { targetId: 999_999_999 }, 404, /^No such message$/],
      ['targetId 0', { targetId: 0 }, 400, /^targetId: /],
      [
        'a targetId with an attachment',
        { targetId: 1, attachmentIds: [randomUUID()] },
        400,
        /^A reaction or an edit carries no attachments$/,
      ],
    ] as const
  ).map(([name, extra, expectStatus, expectMessage]): Row => ({
    name: `POST /api/messages/send — ${name}`,
    method: 'POST',
    path: '/api/messages/send',
    body: async (f: Fixture) => ({ ...(await f.sendBody()), ...extra }),
    expectStatus,
    expectMessage,
  })),

  // ------------------------------------------------------------ POST /api/users/lookup (member)
  ...bodyBasics('POST /api/users/lookup', 'member'),
  bodyRow('POST /api/users/lookup', 'no ids', { ids: [] }, 400, /ids: Too small/),
  bodyRow(
    'POST /api/users/lookup',
    'more ids than one look-up names',
    () => ({ ids: Array.from({ length: limits.usersPerLookup + 1 }, () => randomUUID()) }),
    400,
    /ids: Too big/,
  ),
  bodyRow('POST /api/users/lookup', 'an id that is not one', { ids: ['bob'] }, 400, /ids\.0: /),
  bodyRow('POST /api/users/lookup', 'ids as a string', { ids: randomUUID() }, 400, /ids: /),
  bodyRow('POST /api/users/lookup', 'an extra field', { ids: [randomUUID()], all: true }, 400, /Unrecognized key.*"all"/),
];
