/** The per-object rules, as tables. */
import { describe, expect, it } from 'vitest';
import type { HttpError } from '../http/errors';
import {
  assertOwnEpoch,
  bannedByOf,
  banRefusal,
  conversationWith,
  deletionRefusal,
  groupConversation,
  mayReadAttachment,
  readsAt,
  readWindow,
  timerRefusal,
  unbanRefusal,
  type Moderator,
  type ModerationTarget,
  type Peer,
} from './rules';

const ME = '00000000-0000-4000-8000-000000000001';
const PEER = '00000000-0000-4000-8000-000000000002';
const ADMIN = '00000000-0000-4000-8000-000000000003';
const OTHER_ADMIN = '00000000-0000-4000-8000-000000000004';

describe('who may ban whom', () => {
  const creator: Moderator = { kind: 'creator' };
  const admin: Moderator = { kind: 'admin', id: ADMIN };
  const standing = { isBanned: false, bannedBy: null };
  const member: ModerationTarget = { role: 'member', isCreatorAccount: false, ...standing };
  const otherAdmin: ModerationTarget = { role: 'admin', isCreatorAccount: false, ...standing };
  const creatorsAccount: ModerationTarget = { role: 'member', isCreatorAccount: true, ...standing };
  const bannedByCreator: ModerationTarget = { ...member, isBanned: true, bannedBy: 'creator' };
  const bannedByAdmin: ModerationTarget = { ...member, isBanned: true, bannedBy: OTHER_ADMIN };
  const bannedOfOldOrigin: ModerationTarget = { ...member, isBanned: true, bannedBy: null };
  it.each([
    ['the creator', creator, 'a member', member, null],
    ['the creator', creator, 'an admin', otherAdmin, null],
    ['the creator', creator, "one of the creator's accounts", creatorsAccount, null],
    ['the creator', creator, 'a member the creator banned', bannedByCreator, null],
    ['the creator', creator, 'a member an admin banned', bannedByAdmin, null],
    ['an admin', admin, 'a member', member, null],
    ['an admin', admin, 'an admin', otherAdmin, 'Administrators cannot ban other administrators'],
    ['an admin', admin, "one of the creator's accounts", creatorsAccount, 'Administrators cannot ban other administrators'],
    ['an admin', admin, 'a member the creator banned', bannedByCreator, 'This member was banned by the network creator'],
    [
      'an admin',
      admin,
      'a member banned before bans recorded their origin',
      bannedOfOldOrigin,
      'This member was banned by the network creator',
    ],
    ['an admin', admin, 'a member another admin banned', bannedByAdmin, null],
  ] as const)('%s banning %s: %s', (_a, actor, _t, target, refused) => {
    const refusal = banRefusal(actor, target);
    if (refused === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ status: 403, message: refused });
  });

  it.each([
    ['the creator', creator, 'a ban of the creator', bannedByCreator, null],
    ['the creator', creator, "an admin's ban", bannedByAdmin, null],
    ['the creator', creator, 'a banned admin', { ...otherAdmin, isBanned: true, bannedBy: 'creator' }, null],
    ['an admin', admin, "another admin's ban", bannedByAdmin, null],
    ['an admin', admin, 'their own ban', { ...member, isBanned: true, bannedBy: ADMIN }, null],
    ['an admin', admin, 'a member not banned', member, null],
    ['an admin', admin, 'a ban of the creator', bannedByCreator, 'Only the network creator can lift this ban'],
    ['an admin', admin, 'a ban of unknown origin', bannedOfOldOrigin, 'Only the network creator can lift this ban'],
    [
      'an admin',
      admin,
      'a banned admin',
      { ...otherAdmin, isBanned: true, bannedBy: 'creator' },
      'Only the network creator can lift this ban',
    ],
    [
      'an admin',
      admin,
      "an admin's ban on an admin (promoted while banned)",
      { ...otherAdmin, isBanned: true, bannedBy: OTHER_ADMIN },
      'Only the network creator can lift this ban',
    ],
    [
      'an admin',
      admin,
      "an admin's ban on one of the creator's accounts",
      { ...creatorsAccount, isBanned: true, bannedBy: OTHER_ADMIN },
      'Only the network creator can lift this ban',
    ],
  ] as const)('%s lifting %s: %s', (_a, actor, _t, target, refused) => {
    const refusal = unbanRefusal(actor, target);
    if (refused === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ status: 403, message: refused });
  });

  it('records who banned', () => {
    expect(bannedByOf(creator)).toBe('creator');
    expect(bannedByOf(admin)).toBe(ADMIN);
  });
});

describe('who may read and write whose conversation', () => {
  const peer = (over: Partial<Peer> = {}): Peer => ({ id: PEER, isBanned: false, isCompromised: false, ...over });
  it.each([
    ['reading', 'the general channel', 'all', undefined, 'general'],
    ['writing', 'the general channel', 'all', undefined, 'general'],
    ['reading', 'a member in good standing', PEER, peer(), `dm:${ME}:${PEER}`],
    ['writing', 'a member in good standing', PEER, peer(), `dm:${ME}:${PEER}`],
    ['reading', 'a banned member (their shared history)', PEER, peer({ isBanned: true }), `dm:${ME}:${PEER}`],
    ['reading', 'a wiped member (their shared history)', PEER, peer({ isCompromised: true }), `dm:${ME}:${PEER}`],
  ] as const)('%s opens %s', (use, _name, receiverId, p, conversation) => {
    expect(conversationWith(ME, receiverId, p, use === 'reading' ? 'read' : 'write')).toBe(conversation);
  });
  it.each([
    ['reading', 'themselves', ME, undefined, 400, 'You cannot message yourself'],
    ['writing', 'themselves', ME, undefined, 400, 'You cannot message yourself'],
    ['reading', 'an unknown member', PEER, undefined, 404, 'No such member'],
    ['writing', 'an unknown member', PEER, undefined, 404, 'No such member'],
    ['writing', 'a banned member', PEER, peer({ isBanned: true }), 403, 'This member is banned'],
    ['writing', 'a wiped member', PEER, peer({ isCompromised: true }), 403, 'This member is banned'],
  ] as const)('%s refuses %s', (use, _name, receiverId, p, status, message) => {
    expect(() => conversationWith(ME, receiverId, p, use === 'reading' ? 'read' : 'write')).toThrow(
      expect.objectContaining({ status, message }) as HttpError,
    );
  });
  it('names a direct message the same from both sides', () => {
    expect(conversationWith(ME, PEER, peer(), 'write')).toBe(conversationWith(PEER, ME, { ...peer(), id: ME }, 'write'));
  });
});

describe('which epoch may carry a message', () => {
  const conversation = 'general';
  it.each([
    ['its sender, in its conversation', { senderId: ME, conversationId: conversation }, true],
    ['an unknown epoch', undefined, false],
    ["another member's epoch", { senderId: PEER, conversationId: conversation }, false],
    ['an epoch of another conversation', { senderId: ME, conversationId: `dm:${ME}:${PEER}` }, false],
  ] as const)('%s', (_name, epoch, allowed) => {
    const check = () => assertOwnEpoch(ME, conversation, epoch);
    if (allowed) expect(check).not.toThrow();
    else expect(check).toThrow('Unknown epoch for this conversation');
  });
});

describe('from when a member reads a conversation', () => {
  const joined = new Date('2026-11-01T00:00:00Z');
  const added = new Date('2026-11-05T00:00:00Z');
  const me = { id: ME, createdAt: joined };
  const group = 'group:00000000-0000-4000-8000-0000000000aa';
  const at = {
    before: new Date('2026-10-31T00:00:00Z'),
    joined,
    between: new Date('2026-11-03T00:00:00Z'),
    added,
    later: new Date('2026-11-09T00:00:00Z'),
  };
  it.each([
    ['the channel', 'general', undefined, ['joined', 'between', 'added', 'later']],
    ['their DM', `dm:${ME}:${PEER}`, undefined, ['before', 'joined', 'between', 'added', 'later']],
    ['a DM of two others', `dm:${PEER}:${ADMIN}`, undefined, []],
    ['a group they were added to', group, added, ['added', 'later']],
    ['a group they are not in (or were removed from)', group, undefined, []],
  ] as const)('%s', (_name, conversationId, groupAddedAt, readable) => {
    const window = readWindow(me, conversationId, groupAddedAt);
    const read = Object.entries(at).flatMap(([name, date]) => (readsAt(window, date) ? [name] : []));
    expect(read).toEqual(readable);
  });

  it('a group exists only for its members', () => {
    expect(groupConversation(group, { addedAt: added })).toBe(group);
    expect(() => groupConversation(group, undefined)).toThrow('No such group');
  });
});

describe('who may download an attachment', () => {
  const joined = new Date('2026-11-01T00:00:00Z');
  const me = { id: ME, createdAt: joined };
  const before = new Date('2026-10-31T23:59:59Z');
  const after = new Date('2026-11-02T00:00:00Z');
  const dm = `dm:${ME}:${PEER}`;
  const others = `dm:${PEER}:${ADMIN}`;
  it.each([
    ['my own upload, not sent yet', { uploaderId: ME, conversationId: dm, messageCreatedAt: null, messageErased: false }, true],
    [
      "someone else's upload, not sent yet, in my DM",
      { uploaderId: PEER, conversationId: dm, messageCreatedAt: null, messageErased: false },
      false,
    ],
    ['one sent in my DM', { uploaderId: PEER, conversationId: dm, messageCreatedAt: after, messageErased: false }, true],
    ['one sent in a DM of two others', { uploaderId: PEER, conversationId: others, messageCreatedAt: after, messageErased: false }, false],
    [
      'one sent in the channel after I joined',
      { uploaderId: PEER, conversationId: 'general', messageCreatedAt: after, messageErased: false },
      true,
    ],
    [
      'one sent in the channel at the moment I joined',
      { uploaderId: PEER, conversationId: 'general', messageCreatedAt: joined, messageErased: false },
      true,
    ],
    [
      'one sent in the channel before I joined',
      { uploaderId: PEER, conversationId: 'general', messageCreatedAt: before, messageErased: false },
      false,
    ],
    [
      'one sent in my DM, whose message was then erased',
      { uploaderId: PEER, conversationId: dm, messageCreatedAt: after, messageErased: true },
      false,
    ],
    [
      'my own, sent in the channel, whose message was then erased',
      { uploaderId: ME, conversationId: 'general', messageCreatedAt: after, messageErased: true },
      false,
    ],
    ['no such attachment', undefined, false],
    [
      'one sent in a group I am not in',
      { uploaderId: PEER, conversationId: 'group:00000000-0000-4000-8000-0000000000aa', messageCreatedAt: after, messageErased: false },
      false,
    ],
  ] as const)('%s', (_name, attachment, allowed) => {
    expect(mayReadAttachment(me.id, attachment ? readWindow(me, attachment.conversationId, undefined) : null, attachment)).toBe(allowed);
  });
});

describe('who sets a disappearing-message timer', () => {
  const dm = `dm:${ME}:${PEER}`;
  const member = { role: 'member', isCreatorAccount: false } as const;
  const admin = { role: 'admin', isCreatorAccount: false } as const;
  const creatorsAccount = { role: 'member', isCreatorAccount: true } as const;
  const refused = 'Only administrators can change disappearing messages in the general channel';
  it.each([
    ['a member, in their DM', member, dm, null],
    ['an admin, in their DM', admin, dm, null],
    ['a member, in the channel', member, 'general', refused],
    ['an admin, in the channel', admin, 'general', null],
    ["the creator's account, in the channel", creatorsAccount, 'general', null],
  ] as const)('%s', (_name, actor, conversationId, message) => {
    const refusal = timerRefusal(actor, conversationId);
    if (message === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ status: 403, message });
  });
});

describe('who deletes a message for everyone', () => {
  const mine = { senderId: ME, conversationId: 'general', erased: false };
  it.each([
    ['their own channel message', mine, null],
    ['their own DM message', { ...mine, conversationId: `dm:${ME}:${PEER}` }, null],
    ["another member's channel message", { ...mine, senderId: PEER }, 403],
    ["the other member's message in their DM", { ...mine, senderId: PEER, conversationId: `dm:${ME}:${PEER}` }, 403],
    ['a message of a DM they are not in', { ...mine, senderId: PEER, conversationId: `dm:${PEER}:${ADMIN}` }, 404],
    ['a message already erased', { ...mine, erased: true }, 404],
    [
      'a message of a group they are not in',
      { ...mine, senderId: PEER, conversationId: 'group:00000000-0000-4000-8000-0000000000aa' },
      404,
    ],
    ['no message', undefined, 404],
  ] as const)('a member and %s', (_name, target, status) => {
    const refusal = deletionRefusal(
      ME,
      target,
      target ? readWindow({ id: ME, createdAt: new Date(0) }, target.conversationId, undefined) : null,
    );
    if (status === null) expect(refusal).toBeNull();
    else expect(refusal).toMatchObject({ status });
  });
});
