/** The members' table (and the created-at column every table shares): schema.ts and the tables in files of their own build on it. */
import { sql } from 'drizzle-orm';
import { boolean, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

/** When a row was made, in the database's clock. */
export const createdAt = () => timestamp('created_at', { withTimezone: true }).notNull().defaultNow();

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull(),
    /** SHA-256 of the login key, hex. The login key itself never reaches storage. */
    loginKeyHash: text('login_key_hash').notNull(),
    encryptionPublicKey: text('encryption_public_key').notNull(),
    signingPublicKey: text('signing_public_key').notNull(),
    /**
     * The X25519 key channel secrets are wrapped to (raw, base64) and the member's ECDSA signature
     * over it (packages/crypto/src/channel-keys.ts); null until their client first sends them.
     */
    sharePublicKey: text('share_public_key'),
    shareKeySignature: text('share_key_signature'),
    /** PBKDF2/AES-GCM bundle only the access token opens; WIPED_BUNDLE once the breach policy wiped it. */
    encryptedPrivateKey: text('encrypted_private_key').notNull(),
    role: text('role', { enum: ['member', 'admin'] })
      .notNull()
      .default('member'),
    isCreatorAccount: boolean('is_creator_account').notNull().default(false),
    isBanned: boolean('is_banned').notNull().default(false),
    bannedReason: text('banned_reason'),
    /**
     * Who made the current ban: 'creator', or the banning admin's user id. Only the creator lifts
     * the creator's bans (access/rules.ts); null while not banned.
     */
    bannedBy: text('banned_by'),
    /** Wiped by the breach policy (security/breach.ts): bundle and shares deleted, never a recipient again. */
    isCompromised: boolean('is_compromised').notNull().default(false),
    /** Locked by the breach policy: no sign-in until the creator unlocks. */
    isLocked: boolean('is_locked').notNull().default(false),
    lastActivity: timestamp('last_activity', { withTimezone: true }),
    /**
     * The general channel's membership version the member's registration moved it to: the first
     * generation of a channel key they may be given (conversations/channel-key.ts). 0 for members
     * from before it was kept, who joined before any channel key.
     */
    joinedVersion: integer('joined_version').notNull().default(0),
    /** Opted in to read receipts: sends its read position and sees those of others who opted in. */
    readReceipts: boolean('read_receipts').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('users_username_lower_idx').on(sql`lower(${t.username})`),
    uniqueIndex('users_login_key_hash_idx').on(t.loginKeyHash),
  ],
);
