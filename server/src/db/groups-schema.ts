/** Private groups' tables (docs/security.md §4), part of the schema (schema.ts exports them). */
import { boolean, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { createdAt, users } from './users-schema';

/**
 * A private group (docs/security.md §4): its id is its conversation's (`group:<uuid>`). The name is
 * sealed for the members (an epoch of `nameSenderId`, the name encrypted at index 0 of it): the
 * server holds it as ciphertext only.
 */
export const groups = pgTable('groups', {
  id: text('id').primaryKey(),
  nameEpochId: uuid('name_epoch_id').notNull(),
  nameSenderId: uuid('name_sender_id').notNull(),
  encryptedName: text('encrypted_name').notNull(),
  createdAt: createdAt(),
});

/** Who belongs to a group, since when (the history they read begins there), and who may remove others. */
export const groupMembers = pgTable(
  'group_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    isAdmin: boolean('is_admin').notNull().default(false),
    addedAt: timestamp('added_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('group_members_user_idx').on(t.userId)],
);
