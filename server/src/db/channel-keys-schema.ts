/**
 * The general channel's keys (docs/scaling.md §6), part of the schema (schema.ts exports them): a
 * channel epoch, the uploads of shares of its secret (each under one signed header) and one share
 * per member. The server holds the header, the ephemeral public key and 40-byte wraps only.
 */
import { index, integer, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt, users } from './users-schema';

/** One channel epoch: a secret made by one member's client at a removal (or the first one). */
export const channelEpochs = pgTable('channel_epochs', {
  id: uuid('id').primaryKey(),
  conversationId: text('conversation_id').notNull(),
  createdBy: uuid('created_by')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  createdAt: createdAt(),
});

/** One upload of shares: the wrapper's signed header (packages/crypto/src/channel-keys.ts). */
export const channelWraps = pgTable(
  'channel_wraps',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    channelEpochId: uuid('channel_epoch_id')
      .notNull()
      .references(() => channelEpochs.id, { onDelete: 'cascade' }),
    wrapperId: uuid('wrapper_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    generation: integer('generation').notNull(),
    ephemeralPublicKey: text('ephemeral_public_key').notNull(),
    signature: text('signature').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('channel_wraps_epoch_idx').on(t.channelEpochId)],
);

/** A member's share of a channel epoch's secret, at the generation of its wrap. */
export const channelShares = pgTable(
  'channel_shares',
  {
    channelEpochId: uuid('channel_epoch_id')
      .notNull()
      .references(() => channelEpochs.id, { onDelete: 'cascade' }),
    recipientId: uuid('recipient_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    wrapId: uuid('wrap_id')
      .notNull()
      .references(() => channelWraps.id, { onDelete: 'cascade' }),
    wrappedKey: text('wrapped_key').notNull(),
  },
  (t) => [primaryKey({ columns: [t.recipientId, t.channelEpochId] }), index('channel_shares_epoch_idx').on(t.channelEpochId)],
);
