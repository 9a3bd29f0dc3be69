/** The table's rows for read receipts (server/src/read-receipts/routes.ts): signed out, malformed, and the general channel. */
import { randomUUID } from 'node:crypto';
import { bodyBasics, bodyRow, signedOut, type Fixture, type Row } from './table';

export const readReceiptRows: Row[] = [
  ...signedOut('POST', '/api/users/me/read-receipts', { enabled: true }),
  ...signedOut('POST', '/api/conversations/read', { receiverId: randomUUID(), messageId: 1 }),
  ...signedOut('GET', `/api/conversations/reads?receiverId=${randomUUID()}`),

  ...bodyBasics('POST /api/users/me/read-receipts', 'member'),
  bodyRow('POST /api/users/me/read-receipts', 'enabled as a string', { enabled: 'yes' }, 400, /enabled/),
  bodyRow('POST /api/users/me/read-receipts', 'an extra field', { enabled: true, extra: 1 }, 400, /Unrecognized key.*"extra"/),

  ...bodyBasics('POST /api/conversations/read', 'member'),
  // The general channel has no read receipts: its name is no member id.
  bodyRow('POST /api/conversations/read', 'the general channel', { receiverId: 'all', messageId: 1 }, 400, /receiverId/),
  bodyRow('POST /api/conversations/read', 'a message id of 0', (f: Fixture) => ({ receiverId: f.bob.id, messageId: 0 }), 400, /messageId/),
  bodyRow(
    'POST /api/conversations/read',
    'a message id as text',
    (f: Fixture) => ({ receiverId: f.bob.id, messageId: '7' }),
    400,
    /messageId/,
  ),
  bodyRow(
    'POST /api/conversations/read',
    'a message not in this conversation',
    (f: Fixture) => ({ receiverId: f.bob.id, messageId: 2 ** 50 }),
    404,
    /^No such message in this conversation$/,
  ),
  bodyRow(
    'POST /api/conversations/read',
    'a member who does not exist',
    { receiverId: randomUUID(), messageId: 1 },
    404,
    /^No such member$/,
  ),
  bodyRow('POST /api/conversations/read', 'oneself', (f: Fixture) => ({ receiverId: f.alice.id, messageId: 1 }), 400, /yourself/),

  {
    name: 'GET /api/conversations/reads — the general channel',
    method: 'GET',
    path: '/api/conversations/reads?receiverId=all',
    expectStatus: 400,
    expectMessage: /receiverId/,
  },
  {
    name: 'GET /api/conversations/reads — no receiverId',
    method: 'GET',
    path: '/api/conversations/reads',
    expectStatus: 400,
    expectMessage: /receiverId/,
  },
  {
    name: 'GET /api/conversations/reads — a member who does not exist',
    method: 'GET',
    path: `/api/conversations/reads?receiverId=${randomUUID()}`,
    expectStatus: 404,
    expectMessage: /^No such member$/,
  },
];
