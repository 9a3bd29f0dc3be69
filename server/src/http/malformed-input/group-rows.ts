/** The table's rows for private groups (server/src/groups/routes.ts): signed out, malformed, and groups the caller is not in. */
import { randomUUID } from 'node:crypto';
import { limits } from '@enclave/protocol';
import { bodyBasics, bodyRow, signedOut, type Fixture, type Row } from './table';

/** A group's creation and additions carry up to 1,000 shares. */
const GROUP_BODY_LIMIT = limits.groupMaxMembers * 700;

/** A well-formed sealed name (its shares are not looked at before these refusals). */
const name = (membershipVersion = 1) => ({
  epochId: randomUUID(),
  membershipVersion,
  shares: [{ recipientId: randomUUID(), wrappedKey: 'A'.repeat(344), signature: 'A'.repeat(88) }],
  encryptedName: '{}',
});
const groupId = () => `group:${randomUUID()}`;
const create = (over: Record<string, unknown>) => (f: Fixture) => ({ groupId: groupId(), memberIds: [f.bob.id], name: name(), ...over });

export const groupRows: Row[] = [
  ...signedOut('GET', '/api/groups'),
  ...signedOut('POST', '/api/groups', { groupId: groupId(), memberIds: [randomUUID()], name: name() }),
  ...signedOut('POST', '/api/groups/members', { groupId: groupId(), memberIds: [randomUUID()], name: name(2) }),
  ...signedOut('POST', '/api/groups/remove', { groupId: groupId(), memberId: randomUUID() }),

  ...bodyBasics('POST /api/groups', 'member', GROUP_BODY_LIMIT),
  bodyRow('POST /api/groups', 'a group id that is not one', create({ groupId: 'general' }), 400, /^groupId: must be a group id/),
  bodyRow('POST /api/groups', 'no members', create({ memberIds: [] }), 400, /Choose at least one member/),
  bodyRow('POST /api/groups', 'no name', create({ name: undefined }), 400, /^name: /),
  bodyRow('POST /api/groups', 'an extra field', create({ extra: 1 }), 400, /Unrecognized key.*"extra"/),
  bodyRow('POST /api/groups', 'oneself among the members', (f: Fixture) => create({ memberIds: [f.alice.id] })(f), 400, /yourself/),
  bodyRow('POST /api/groups', 'a member who does not exist', create({ memberIds: [randomUUID()] }), 404, /^No such member$/),
  bodyRow(
    'POST /api/groups',
    'a name sealed for a later member set',
    create({ name: name(2) }),
    409,
    /members of this conversation changed/,
  ),

  ...bodyBasics('POST /api/groups/members', 'member', GROUP_BODY_LIMIT),
  bodyRow(
    'POST /api/groups/members',
    'a group the caller is not in',
    (f: Fixture) => ({ groupId: groupId(), memberIds: [f.bob.id], name: name(2) }),
    404,
    /^No such group$/,
  ),
  bodyRow('POST /api/groups/members', 'no name', (f: Fixture) => ({ groupId: groupId(), memberIds: [f.bob.id] }), 400, /^name: /),

  ...bodyBasics('POST /api/groups/remove', 'member'),
  bodyRow('POST /api/groups/remove', 'a member id that is not one', { groupId: groupId(), memberId: 'bob' }, 400, /^memberId: /),
  bodyRow(
    'POST /api/groups/remove',
    'a group the caller is not in',
    (f: Fixture) => ({ groupId: groupId(), memberId: f.bob.id }),
    404,
    /^No such group$/,
  ),
];
