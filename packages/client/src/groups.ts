/**
 * Private groups as a member handles them (docs/security.md §4): the name sealed for the member
 * set (an epoch of the sealer, the name encrypted at index 0 of it) on creation and on every
 * addition, and opened with the member's own share. Removing a member or leaving needs no new
 * seal: every later epoch of every sender is wrapped without them anyway.
 */
import * as e2e from '@enclave/crypto';
import type { PrivateIdentity } from '@enclave/crypto';
import { GROUP_PREFIX, groupNameBodySchema, limits, routes, type Group, type GroupMember, type SealedGroupName } from '@enclave/protocol';
import { isMembershipChanged } from './api-failure';
import { KEY_CHANGED, type KeyTrust, type Recipient } from './key-trust';
import type { MemberList } from './member-list';
import type { CallRoute } from './member-client';

/** A group with its name opened: null when it does not open (no share for this member, or not signed by its sealer). */
export type GroupView = { id: string; name: string | null; members: GroupMember[]; membershipVersion: number; createdAt: string };

export type GroupsOptions = {
  self: { id: string; encryptionPublicKey: string };
  keys: PrivateIdentity;
  call: CallRoute;
  trust: KeyTrust;
  /** The client's member list, shared with its KeyTrust. */
  members: MemberList;
};

export class Groups {
  constructor(private readonly options: GroupsOptions) {}

  /** The member's groups, names opened, in the order the server lists them (newest first). */
  async list(): Promise<GroupView[]> {
    const { groups } = await this.options.call(routes.groups, {});
    return Promise.all(groups.map(async (g) => ({ ...viewOf(g), name: await this.openName(g) })));
  }

  /** Creates a group of the member and `memberIds`, called `name`; answers it opened. */
  async create(name: string, memberIds: readonly string[]): Promise<GroupView> {
    const groupId = `${GROUP_PREFIX}${crypto.randomUUID()}`;
    const members = await this.keysOf(memberIds);
    const sealed = await this.seal(groupId, name, 1, members);
    const { group } = await this.options.call(routes.createGroup, { body: { groupId, memberIds: [...memberIds], name: sealed } });
    return { ...viewOf(group), name };
  }

  /**
   * Adds members to a group whose name the member has opened: the name is sealed again for the new
   * member set. A member set that moved meanwhile (a ban, another addition) is fetched again, once.
   */
  async add(group: Pick<GroupView, 'id' | 'name'>, memberIds: readonly string[]): Promise<GroupView> {
    try {
      return await this.addOnce(group, memberIds);
    } catch (error) {
      if (!isMembershipChanged(error)) throw error;
      return this.addOnce(group, memberIds);
    }
  }

  private async addOnce(group: Pick<GroupView, 'id' | 'name'>, memberIds: readonly string[]): Promise<GroupView> {
    if (group.name === null) throw new Error('This group’s name could not be opened: members cannot be added from this device');
    const { call } = this.options;
    const current = await call(routes.conversationMembers, { query: { receiverId: group.id } });
    const added = await this.keysOf(memberIds);
    const recipients = [...current.members.filter((m) => m.id !== this.options.self.id), ...added];
    const sealed = await this.seal(group.id, group.name, current.membershipVersion + 1, recipients);
    const { group: updated } = await call(routes.addGroupMembers, { body: { groupId: group.id, memberIds: [...memberIds], name: sealed } });
    return { ...viewOf(updated), name: group.name };
  }

  /** Removes a member (the group's admins), or, with the member's own id, leaves. */
  async remove(groupId: string, memberId: string): Promise<void> {
    await this.options.call(routes.removeGroupMember, { body: { groupId, memberId } });
  }

  /** The listed public keys of these members, from the client's member list (KeyTrust checks them against the pins next). */
  private async keysOf(ids: readonly string[]): Promise<Recipient[]> {
    const users = await this.options.members.including(ids);
    return ids.map((id) => {
      const user = users.find((u) => u.id === id);
      if (!user) throw new Error('No such member');
      return { id, encryptionPublicKey: user.encryptionPublicKey };
    });
  }

  /** The name sealed for the member and `others` at `membershipVersion`, each key checked by the trust first. */
  private async seal(groupId: string, name: string, membershipVersion: number, others: Recipient[]): Promise<SealedGroupName> {
    const { self, keys, trust } = this.options;
    const body = groupNameBodySchema.parse({ v: 2, groupName: name });
    const { recipients } = await trust.checkRecipients(groupId, [
      { id: self.id, encryptionPublicKey: self.encryptionPublicKey },
      ...others,
    ]);
    if (recipients.length > limits.groupMaxMembers) throw new Error(`A group holds at most ${limits.groupMaxMembers} members`);
    const { epoch, shares } = await e2e.createEpoch({
      conversationId: groupId,
      senderId: self.id,
      membershipVersion,
      recipients,
      signKey: keys.signKey,
    });
    const encryptedName = await e2e.encryptMessage({ epoch, index: 0, plaintext: JSON.stringify(body), version: 2, signKey: keys.signKey });
    return { epochId: epoch.epochId, membershipVersion, shares, encryptedName };
  }

  /** The group's name, or null when the member's share is missing or anything fails to verify. */
  private async openName(group: Group): Promise<string | null> {
    const { self, keys, trust } = this.options;
    const share = group.nameShare;
    if (!share || share.conversationId !== group.id || share.epochId !== group.name.epochId || share.senderId !== group.name.senderId)
      return null;
    try {
      const senderVerifyKey = await trust.verifyKeyFor(share.senderId);
      if (!senderVerifyKey || senderVerifyKey === KEY_CHANGED) return null;
      const epoch = await e2e.openEpochShare({ share, recipientId: self.id, decryptKey: keys.decryptKey, senderVerifyKey });
      const opened = await e2e.decryptMessage({ epoch, index: 0, encryptedContent: group.name.encryptedName, senderVerifyKey });
      if (opened.version !== 2) return null;
      return groupNameBodySchema.parse(JSON.parse(opened.plaintext)).groupName;
    } catch {
      return null;
    }
  }
}

const viewOf = (g: Group): Omit<GroupView, 'name'> => ({
  id: g.id,
  members: g.members,
  membershipVersion: g.membershipVersion,
  createdAt: g.createdAt,
});
