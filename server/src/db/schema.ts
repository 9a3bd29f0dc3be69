/**
 * The database. What the server may know and nothing more (docs/security.md §1): hashes of login
 * keys and session tokens, public keys, sealed private-key bundles, and ciphertext.
 */
import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { createdAt, users } from './users-schema';

export const accessKeys = pgTable(
  'access_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The invite key itself: staff list and sell it, so it is stored as issued. */
    key: text('key').notNull(),
    purchaseId: text('purchase_id'),
    salePrice: numeric('sale_price', { precision: 10, scale: 2, mode: 'number' }),
    status: text('status', { enum: ['active', 'revoked'] })
      .notNull()
      .default('active'),
    /** A tripwire: never for sale; any use of it is a critical security event. */
    isCanary: boolean('is_canary').notNull().default(false),
    generatedAt: timestamp('generated_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    usedAt: timestamp('used_at', { withTimezone: true }),
    usedBy: uuid('used_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [uniqueIndex('access_keys_key_idx').on(t.key)],
);

export const sessions = pgTable(
  'sessions',
  {
    /** SHA-256 of the cookie's random token, hex. */
    id: text('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    /** The browser's User-Agent at sign-in, cut to 200 characters, for the member's session list. */
    userAgent: text('user_agent'),
    /**
     * Names the session in the member's device list and in the URL that ends it: random, so that
     * nothing about the cookie's token can be learnt from it (the id is the token's hash).
     */
    publicId: uuid('public_id').notNull().defaultRandom().unique(),
    /** When the session was last used, to within SESSION_TOUCH_MS (auth/sessions.ts): not written on every request. */
    lastActiveAt: timestamp('last_active_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/**
 * Per conversation, the version of its member set (it grows on every join, ban, unban or wipe) and
 * its disappearing-message timer in seconds (0: off), which the server needs to erase on time.
 */
export const conversations = pgTable('conversations', {
  id: text('id').primaryKey(),
  membershipVersion: integer('membership_version').notNull().default(0),
  disappearingSeconds: integer('disappearing_seconds').notNull().default(0),
  /**
   * The general channel's key (docs/scaling.md §6): the channel epoch in force, null when a removal
   * asks for a new one, and the membership version it took effect at (its generation 0: each join
   * since is one generation).
   */
  channelEpochId: uuid('channel_epoch_id'),
  channelBaseVersion: integer('channel_base_version'),
  /** The member whose client is making the next channel epoch, which one, and until when the claim holds. */
  rekeyBy: uuid('rekey_by'),
  rekeyEpochId: uuid('rekey_epoch_id'),
  rekeyUntil: timestamp('rekey_until', { withTimezone: true }),
});

/** A sender's chain key for one conversation and one member set (docs/security.md §4). */
export const epochs = pgTable(
  'epochs',
  {
    id: uuid('id').primaryKey(),
    conversationId: text('conversation_id').notNull(),
    senderId: uuid('sender_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    membershipVersion: integer('membership_version').notNull(),
    /** For a chain derived from the channel key: its channel epoch and generation (no shares of its own). */
    channelEpochId: uuid('channel_epoch_id'),
    channelGeneration: integer('channel_generation'),
    createdAt: createdAt(),
  },
  (t) => [index('epochs_conversation_idx').on(t.conversationId, t.senderId)],
);

/** The chain key wrapped for one recipient's RSA key, signed by the sender. */
export const epochShares = pgTable(
  'epoch_shares',
  {
    epochId: uuid('epoch_id')
      .notNull()
      .references(() => epochs.id, { onDelete: 'cascade' }),
    recipientId: uuid('recipient_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    wrappedKey: text('wrapped_key').notNull(),
    signature: text('signature').notNull(),
  },
  (t) => [primaryKey({ columns: [t.recipientId, t.epochId] })],
);

export const messages = pgTable(
  'messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    conversationId: text('conversation_id').notNull(),
    senderId: uuid('sender_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    epochId: uuid('epoch_id')
      .notNull()
      .references(() => epochs.id, { onDelete: 'cascade' }),
    index: integer('index').notNull(),
    /**
     * NULL once erased (expired, or deleted by its sender): the row stays as a tombstone so that
     * its (epoch_id, index) still refuses a replay and the id order of the history is kept.
     */
    encryptedContent: text('encrypted_content'),
    /** The sender's own id for this message: a resend with it returns the stored message. */
    clientMessageId: uuid('client_message_id'),
    createdAt: createdAt(),
    /** Stamped at insert from the conversation's timer; the expiry sweep erases the content then. */
    expiresAt: timestamp('expires_at', { withTimezone: true }),
    /**
     * The message a reaction or an edit applies to (its kind stays inside the ciphertext): erased
     * with its target, and never outlives it.
     */
    targetId: bigint('target_id', { mode: 'number' }).references((): AnyPgColumn => messages.id, { onDelete: 'cascade' }),
  },
  (t) => [
    // A captured message cannot be stored twice (docs/security.md §4: no replays).
    uniqueIndex('messages_epoch_index_idx').on(t.epochId, t.index),
    // One message per client id and sender: resending is idempotent (null ids never collide).
    uniqueIndex('messages_sender_client_id_idx').on(t.senderId, t.clientMessageId),
    index('messages_conversation_idx').on(t.conversationId, t.id),
    index('messages_target_idx')
      .on(t.targetId)
      .where(sql`${t.targetId} is not null`),
    // What the expiry sweep looks for: content still held past its time.
    index('messages_expiry_idx')
      .on(t.expiresAt)
      .where(sql`${t.encryptedContent} is not null`),
  ],
);

/**
 * An uploaded attachment's ciphertext (stored by attachments/store.ts under `id`, never here) and
 * what access needs: who uploaded it, for which conversation, and the message it belongs to once
 * sent. Unlinked rows older than an hour are swept with their blobs (attachments/service.ts).
 */
export const attachments = pgTable(
  'attachments',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    uploaderId: uuid('uploader_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    conversationId: text('conversation_id').notNull(),
    /** Bytes of ciphertext, counted against the uploader's quota. */
    size: integer('size').notNull(),
    /** Null until a message links it; a deleted message sets it back to null, so the sweep takes it. */
    messageId: bigint('message_id', { mode: 'number' }).references(() => messages.id, { onDelete: 'set null' }),
    createdAt: createdAt(),
  },
  (t) => [
    index('attachments_uploader_idx').on(t.uploaderId),
    index('attachments_message_idx').on(t.messageId),
    // The sweep's look-up: unlinked rows by age.
    index('attachments_unlinked_idx')
      .on(t.createdAt)
      .where(sql`${t.messageId} is null`),
  ],
);

/**
 * Disappearing-message timer changes, announced in their conversation's timeline. Their ids come
 * from the messages' sequence, so one id cursor orders both in the history and in catch-up.
 */
export const timerChanges = pgTable(
  'timer_changes',
  {
    id: bigint('id', { mode: 'number' })
      .primaryKey()
      .default(sql`nextval('messages_id_seq')`),
    conversationId: text('conversation_id').notNull(),
    actorId: uuid('actor_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    seconds: integer('seconds').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('timer_changes_conversation_idx').on(t.conversationId, t.id)],
);

/** Open sockets per user and server instance; rows of a dead instance go stale and are ignored. */
export const presence = pgTable(
  'presence',
  {
    instanceId: text('instance_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sockets: integer('sockets').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.userId] })],
);

/** Server-wide settings: the master key's hash and where it came from. */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
});

/**
 * Everything the security screens show, and the audit log: failed logins, refused keys, canary
 * use, admin actions. `ip` is the address the server really saw; headers never hold cookies.
 */
export const securityEvents = pgTable(
  'security_events',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    type: text('type').notNull(),
    severity: text('severity', { enum: ['low', 'medium', 'high', 'critical'] }).notNull(),
    /** The member the event is about, when known. */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    /** Who acted: a member id, 'creator' for the master key, 'operator' for the operator socket (npm run admin). */
    actor: text('actor'),
    ip: text('ip'),
    /**
     * What repeats coalesce and limits count by (security/blocks.ts limitedAddress): the IPv4
     * address, or the /64 of an IPv6 one. Null on rows written before it existed.
     */
    source: text('source'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    ipAnalysis: jsonb('ip_analysis').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index('security_events_created_idx').on(t.createdAt), index('security_events_type_idx').on(t.type)],
);

/**
 * Addresses the creator refuses on every route and socket upgrade of every instance
 * (security/blocks.ts). `ip` is normalized: IPv4-mapped IPv6 is stored as the IPv4 address.
 */
export const blockedIps = pgTable('blocked_ips', {
  ip: text('ip').primaryKey(),
  reason: text('reason').notNull(),
  createdAt: createdAt(),
  /** Null: until unblocked. */
  expiresAt: timestamp('expires_at', { withTimezone: true }),
  /** Requests and socket upgrades refused since the block. */
  hits: integer('hits').notNull().default(0),
});

/**
 * Every completed `npm run backup` (docs/operations.md §8): the creator's compliance panel reads
 * the latest. The archive itself lives outside the database; this is its receipt.
 */
export const backups = pgTable(
  'backups',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    createdAt: createdAt(),
    /** The archive's name in its folder (DATA_DIR/backups unless --out chose another). */
    fileName: text('file_name').notNull(),
    bytes: bigint('bytes', { mode: 'number' }).notNull(),
    /** SHA-256 of the archive, hex: what `sha256sum` prints, to check a copy before restoring it. */
    sha256: text('sha256').notNull(),
    /** 'embedded': a PGlite data directory tarball; 'postgres': a pg_dump custom-format archive. */
    kind: text('kind', { enum: ['embedded', 'postgres'] }).notNull(),
  },
  (t) => [index('backups_created_idx').on(t.createdAt)],
);

/**
 * P2P nodes (p2p/registry.ts): one per hosting member. Online is not stored: it is the host's
 * presence. `ipAddress` is written only when the host chose to publish it.
 */
export const p2pNodes = pgTable('p2p_nodes', {
  id: uuid('id').primaryKey().defaultRandom(),
  hostId: uuid('host_id')
    .notNull()
    .unique()
    .references(() => users.id, { onDelete: 'cascade' }),
  nodeType: text('node_type', { enum: ['community_host'] }).notNull(),
  capabilities: jsonb('capabilities').$type<string[]>().notNull().default([]),
  maxConnections: integer('max_connections').notNull(),
  location: text('location').notNull(),
  ipAddress: text('ip_address'),
  createdAt: createdAt(),
});

/**
 * A joiner's connection to a node, from connect until either party closes it (or the node goes).
 * 'pending' until the host's answer is relayed, then 'open'. Each holds one of the node's slots.
 */
export const p2pConnections = pgTable(
  'p2p_connections',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    nodeId: uuid('node_id')
      .notNull()
      .references(() => p2pNodes.id, { onDelete: 'cascade' }),
    joinerId: uuid('joiner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'open'] })
      .notNull()
      .default('pending'),
    createdAt: createdAt(),
  },
  // A joiner holds at most one connection to a node: connecting again replaces it.
  (t) => [uniqueIndex('p2p_connections_node_joiner_idx').on(t.nodeId, t.joinerId)],
);

/** How far a member who opted in to read receipts has read each conversation (a message id). */
export const readPositions = pgTable(
  'read_positions',
  {
    conversationId: text('conversation_id').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    messageId: bigint('message_id', { mode: 'number' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.userId] })],
);

/**
 * A browser's Web Push subscription: ends with its session (logout, revocation, expiry sweep) and
 * with a ban. The endpoint and keys are the browser vendor's; no message is ever stored here.
 */
export const pushSubscriptions = pgTable(
  'push_subscriptions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    sessionId: text('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    endpoint: text('endpoint').notNull().unique(),
    p256dh: text('p256dh').notNull(),
    auth: text('auth').notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('push_subscriptions_user_idx').on(t.userId)],
);

export { users } from './users-schema';
export { groupMembers, groups } from './groups-schema';
export { channelEpochs, channelShares, channelWraps } from './channel-keys-schema';
