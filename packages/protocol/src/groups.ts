/**
 * Private groups (docs/security.md §4): a conversation `group:<id>` of up to 1,000 members, whose
 * name the server cannot read. The name is sealed like a message: a v2 body `{ v: 2, groupName }`
 * under an epoch of the member who set it, wrapped for every member; each addition seals it again
 * for the new member set. The server keeps who belongs, never what the group is called.
 */
import { z } from 'zod';
import { limits } from './limits';
import { epochShareUploadSchema, wrappedEpochShareSchema } from './messages';
import { epochIdSchema, groupConversationIdSchema, isoDate, userIdSchema } from './primitives';

/** A group's name as its sealed body carries it. */
export const groupNameSchema = z.string().trim().min(1, 'Please enter a group name').max(limits.groupNameMaxChars);

/** The plaintext of a sealed name (never a message body, so a name cannot be shown as a message). */
export const groupNameBodySchema = z.strictObject({ v: z.literal(2), groupName: groupNameSchema });

/**
 * A group's name sealed for its members at `membershipVersion`: an epoch of the sealing member,
 * wrapped for each (the sealer included), and the name encrypted at index 0 of it.
 */
export const sealedGroupNameSchema = z.strictObject({
  epochId: epochIdSchema,
  membershipVersion: z.number().int().positive(),
  shares: z.array(epochShareUploadSchema).min(1).max(limits.groupMaxMembers),
  encryptedName: z.string().min(1).max(limits.envelopeMaxBytes),
});
/** A sealed group name, as a creation or an addition uploads it. */
export type SealedGroupName = z.infer<typeof sealedGroupNameSchema>;

/** `POST /api/groups`: a new group of the caller and `memberIds`, its name sealed for them all at version 1. */
export const createGroupRequestSchema = z.strictObject({
  groupId: groupConversationIdSchema,
  memberIds: z
    .array(userIdSchema)
    .min(1, 'Choose at least one member')
    .max(limits.groupMaxMembers - 1, `A group holds at most ${limits.groupMaxMembers} members`),
  name: sealedGroupNameSchema,
});
/** The body of `POST /api/groups`. */
export type CreateGroupRequest = z.infer<typeof createGroupRequestSchema>;

/** `POST /api/groups/members`: adds members; the name comes sealed again for the new member set. */
export const addGroupMembersRequestSchema = z.strictObject({
  groupId: groupConversationIdSchema,
  memberIds: z
    .array(userIdSchema)
    .min(1)
    .max(limits.groupMaxMembers - 1),
  name: sealedGroupNameSchema,
});
/** The body of `POST /api/groups/members`. */
export type AddGroupMembersRequest = z.infer<typeof addGroupMembersRequestSchema>;

/**
 * `POST /api/groups/remove`: removes a member (the group's admins only), or the caller leaves
 * (`memberId` their own). Every later epoch is wrapped without them.
 */
export const removeGroupMemberRequestSchema = z.strictObject({ groupId: groupConversationIdSchema, memberId: userIdSchema });
/** The body of `POST /api/groups/remove`. */
export type RemoveGroupMemberRequest = z.infer<typeof removeGroupMemberRequestSchema>;

/** A member of a group as its members see them: `isAdmin` may remove others. */
export const groupMemberSchema = z.object({ id: userIdSchema, username: z.string(), isAdmin: z.boolean() });
/** A member of a group. */
export type GroupMember = z.infer<typeof groupMemberSchema>;

/** A group as its members see it: who belongs, and the sealed name with the caller's own share of it. */
export const groupSchema = z.object({
  id: groupConversationIdSchema,
  membershipVersion: z.number().int().nonnegative(),
  createdAt: isoDate,
  members: z.array(groupMemberSchema),
  name: z.object({ epochId: epochIdSchema, senderId: userIdSchema, encryptedName: z.string() }),
  /** The caller's share of the name's epoch; null when it was sealed before a ban lifted since. */
  nameShare: wrappedEpochShareSchema.nullable(),
});
/** A group as the caller sees it. */
export type Group = z.infer<typeof groupSchema>;

/** The answer of `GET /api/groups`: the caller's groups, newest first. */
export const groupsResponseSchema = z.object({ groups: z.array(groupSchema) });
/** The answer of `GET /api/groups`. */
export type GroupsResponse = z.infer<typeof groupsResponseSchema>;
/** The group as it now stands, after a creation or an addition. */
export const groupResponseSchema = z.object({ group: groupSchema });

/** What administrators see of the network's groups: that they exist, and their size; no name, no member. */
export const adminGroupsResponseSchema = z.object({
  groups: z.array(z.object({ id: groupConversationIdSchema, memberCount: z.number().int().nonnegative(), createdAt: isoDate })),
});
/** The answer of `GET /api/admin/groups`. */
export type AdminGroupsResponse = z.infer<typeof adminGroupsResponseSchema>;
