/** The per-object rules, as tables. */
import { describe, expect, it } from 'vitest';
import type { HttpError } from '../http/errors';
import { assertOwnEpoch, banRefusal, conversationWith, type Moderator, type ModerationTarget, type Peer } from './rules';

const ME = '00000000-0000-4000-8000-000000000001';
const PEER = '00000000-0000-4000-8000-000000000002';

describe('who may ban whom', () => {
  const creator: Moderator = { kind: 'creator' };
  const admin: Moderator = { kind: 'admin' };
  const member: ModerationTarget = { role: 'member', isCreatorAccount: false };
  const otherAdmin: ModerationTarget = { role: 'admin', isCreatorAccount: false };
  const creatorsAccount: ModerationTarget = { role: 'member', isCreatorAccount: true };
  it.each([
    ['the creator', creator, 'a member', member, true],
    ['the creator', creator, 'an admin', otherAdmin, true],
    ["the creator", creator, "one of the creator's accounts", creatorsAccount, true],
    ['an admin', admin, 'a member', member, true],
    ['an admin', admin, 'an admin', otherAdmin, false],
    ['an admin', admin, "one of the creator's accounts", creatorsAccount, false],
  ] as const)('%s banning %s: %s', (_a, actor, _t, target, allowed) => {
    const refusal = banRefusal(actor, target);
    expect(refusal === null).toBe(allowed);
    if (refusal) expect(refusal).toMatchObject({ status: 403, message: 'Administrators cannot ban other administrators' });
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
