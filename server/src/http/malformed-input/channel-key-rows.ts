/** The table's rows for the channel key (server/src/conversations/channel-key.ts): signed out, malformed, and refusals of its own. */
import { randomUUID } from 'node:crypto';
import { limits } from '@enclave/protocol';
import { bodyBasics, bodyRow, signedOut, type Fixture, type Row } from './table';

const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
const header = (f: Fixture, overrides: Record<string, unknown> = {}) => ({
  conversationId: 'general',
  epochId: randomUUID(),
  generation: 0,
  wrapperId: f.alice.id,
  ephemeralPublicKey: b64(32),
  signature: b64(64),
  ...overrides,
});
const share = (f: Fixture) => ({ recipientId: f.bob.id, wrappedKey: b64(40) });
const SHARES = 'POST /api/channel-key/shares';

export const channelKeyRows: Row[] = [
  ...signedOut('GET', '/api/channel-key'),
  ...signedOut('POST', '/api/channel-key/claim', { epochId: randomUUID() }),
  ...signedOut('POST', '/api/channel-key/shares', { header: {}, shares: [] }),
  ...signedOut('POST', '/api/channel-key/activate', { epochId: randomUUID() }),
  ...signedOut('POST', '/api/channel-key/sender-epochs', { epochId: randomUUID(), channelEpochId: randomUUID(), membershipVersion: 0 }),

  ...bodyBasics('POST /api/channel-key/claim', 'member'),
  bodyRow('POST /api/channel-key/claim', 'an epoch id that is no uuid', { epochId: 'e1' }, 400, /epochId/),
  ...bodyBasics(SHARES, 'member', limits.channelSharesPerUpload * 128),
  bodyRow(SHARES, 'no shares', (f: Fixture) => ({ header: header(f), shares: [] }), 400, /shares/),
  bodyRow(
    SHARES,
    'another conversation',
    (f: Fixture) => ({ header: header(f, { conversationId: 'dm:a:b' }), shares: [share(f)] }),
    400,
    /must be the general channel/,
  ),
  bodyRow(
    SHARES,
    'a share of 48 bytes',
    (f: Fixture) => ({ header: header(f), shares: [{ ...share(f), wrappedKey: b64(48) }] }),
    400,
    /wrappedKey/,
  ),
  bodyRow(
    SHARES,
    'an ephemeral key of 33 bytes',
    (f: Fixture) => ({ header: header(f, { ephemeralPublicKey: b64(33) }), shares: [share(f)] }),
    400,
    /ephemeralPublicKey/,
  ),
  bodyRow(
    SHARES,
    'a negative generation',
    (f: Fixture) => ({ header: header(f, { generation: -1 }), shares: [share(f)] }),
    400,
    /generation/,
  ),
  bodyRow(
    SHARES,
    `more than ${limits.channelSharesPerUpload} shares`,
    (f: Fixture) => ({ header: header(f), shares: Array.from({ length: limits.channelSharesPerUpload + 1 }, () => share(f)) }),
    400,
    /shares/,
  ),
  bodyRow(
    SHARES,
    'a header naming another member as its wrapper',
    (f: Fixture) => ({ header: header(f, { wrapperId: f.bob.id }), shares: [share(f)] }),
    400,
    /^header.wrapperId: /,
  ),
  bodyRow(
    SHARES,
    'an epoch neither in force nor claimed',
    (f: Fixture) => ({ header: header(f), shares: [share(f)] }),
    409,
    /members of this conversation changed/,
  ),
  ...bodyBasics('POST /api/channel-key/activate', 'member'),
  bodyRow('POST /api/channel-key/activate', 'an epoch not claimed', { epochId: randomUUID() }, 409, /members of this conversation changed/),
  ...bodyBasics('POST /api/channel-key/sender-epochs', 'member'),
  bodyRow(
    'POST /api/channel-key/sender-epochs',
    'a version as text',
    { epochId: randomUUID(), channelEpochId: randomUUID(), membershipVersion: '1' },
    400,
    /membershipVersion/,
  ),
  bodyRow(
    'POST /api/channel-key/sender-epochs',
    'a channel epoch not in force',
    { epochId: randomUUID(), channelEpochId: randomUUID(), membershipVersion: 0 },
    409,
    /members of this conversation changed/,
  ),
];
