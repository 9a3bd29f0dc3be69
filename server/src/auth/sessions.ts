import { createHash, randomBytes } from 'node:crypto';
import type { SessionInfo } from '@enclave/protocol';
import { and, desc, eq, gt, isNull, lt, ne, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions, users } from '../db/schema';
import { endPushOfSessions } from '../push/subscriptions';

export const SESSION_COOKIE = 'enclave_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Stored User-Agent length (docs/security.md §6). */
const USER_AGENT_MAX = 200;
/**
 * How stale a session's last-active time may grow before a request writes it again: the device
 * list needs no more precision, and most requests then cost no write.
 */
export const SESSION_TOUCH_MS = 5 * 60 * 1000;

export type SessionUser = {
  id: string;
  username: string;
  role: 'member' | 'admin';
  isCreatorAccount: boolean;
  createdAt: Date;
};
/** A live session: its id (the token's hash), its member, and when it ends. */
export type AuthContext = { sessionId: string; expiresAt: Date; user: SessionUser };

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** Neither revoked nor expired, by the database's clock (one clock for every instance). */
const open = () => and(isNull(sessions.revokedAt), gt(sessions.expiresAt, sql`now()`));

/** A member's open sessions (whatever the member's state). */
const openOf = (userId: string) => and(eq(sessions.userId, userId), open());

/**
 * Live sessions a member may hold: each sign-in adds a row that lives 30 days, so without a cap a
 * member (or a stolen token) could fill the table by signing in again and again.
 */
export const MAX_LIVE_SESSIONS = 20;

/**
 * Issues a session: the browser gets a random token, the database only its hash. Beyond
 * MAX_LIVE_SESSIONS the member's oldest sessions are revoked; `revoked` are their ids, whose
 * sockets the caller must end.
 */
export async function createSession(
  db: Db,
  userId: string,
  userAgent: string | undefined,
): Promise<{ token: string; expiresAt: Date; revoked: string[] }> {
  const token = randomBytes(32).toString('base64url');
  const id = sha256Hex(token);
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  const revoked = await db.transaction(async (tx) => {
    // A member's sign-ins in turn: concurrent ones would each miss the other's new session and
    // leave one too many. NO KEY UPDATE: inserts referencing the member need not wait for it.
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('no key update');
    await tx.insert(sessions).values({ id, userId, expiresAt, userAgent: userAgent ? userAgent.slice(0, USER_AGENT_MAX) : null });
    // The new session is kept whatever its created_at (the transaction's start) says.
    const newestOthers = tx
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(openOf(userId), ne(sessions.id, id)))
      .orderBy(desc(sessions.createdAt))
      .limit(MAX_LIVE_SESSIONS - 1);
    const rows = await tx
      .update(sessions)
      .set({ revokedAt: new Date() })
      .where(and(openOf(userId), ne(sessions.id, id), notInArray(sessions.id, newestOthers)))
      .returning({ id: sessions.id });
    await endPushOfSessions(
      tx,
      rows.map((r) => r.id),
    );
    return rows.map((r) => r.id);
  });
  return { token, expiresAt, revoked };
}

/** A member who may be signed in: neither banned, wiped (`is_compromised`) nor locked. */
export const inGoodStanding = () => and(eq(users.isBanned, false), eq(users.isCompromised, false), eq(users.isLocked, false));

/**
 * The one statement of a live session, as a condition on `sessions` joined with `users`: open and
 * its member in good standing. The session read below and the send's insert (messages/store.ts)
 * both use it, so the access check and the store cannot disagree (access/rules-in-sql.test.ts).
 */
export const liveSession = () => and(open(), inGoodStanding());

/**
 * The session read of every signed-in request and socket, prepared once per database handle:
 * Drizzle builds its SQL once instead of per request, and PostgreSQL parses and plans it once per
 * connection.
 */
function prepareSessionRead(db: Db) {
  return db
    .select({
      expiresAt: sessions.expiresAt,
      lastActiveAt: sessions.lastActiveAt,
      id: users.id,
      username: users.username,
      role: users.role,
      isCreatorAccount: users.isCreatorAccount,
      createdAt: users.createdAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sql.placeholder('id')), liveSession()))
    .limit(1)
    .prepare('resolve_session');
}
const sessionReads = new WeakMap<Db, ReturnType<typeof prepareSessionRead>>();

/**
 * The live session behind a cookie token; banned, wiped and locked members have none. Marks the
 * session active when its last mark is older than SESSION_TOUCH_MS (every HTTP call and socket
 * authentication comes through here).
 */
export async function resolveSession(db: Db, token: string): Promise<AuthContext | null> {
  const id = sha256Hex(token);
  let read = sessionReads.get(db);
  if (!read) sessionReads.set(db, (read = prepareSessionRead(db)));
  const [row] = await read.execute({ id });
  if (!row) return null;
  const { expiresAt, lastActiveAt, ...user } = row;
  const now = Date.now();
  if (now - lastActiveAt.getTime() >= SESSION_TOUCH_MS) {
    // Conditional, so that concurrent requests of one session write it once.
    const staleBefore = new Date(now - SESSION_TOUCH_MS);
    await db
      .update(sessions)
      .set({ lastActiveAt: new Date(now) })
      .where(and(eq(sessions.id, id), lt(sessions.lastActiveAt, staleBefore)));
  }
  return { sessionId: id, expiresAt, user };
}

/** Ends a session and its push subscriptions (logout). */
export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, sessionId));
    await endPushOfSessions(tx, [sessionId]);
  });
}

/** A member's live sessions, newest first, each named by its public id. */
export async function listSessions(db: Db, userId: string, currentId: string): Promise<SessionInfo[]> {
  const rows = await db
    .select({
      id: sessions.id,
      publicId: sessions.publicId,
      createdAt: sessions.createdAt,
      lastActiveAt: sessions.lastActiveAt,
      expiresAt: sessions.expiresAt,
      userAgent: sessions.userAgent,
    })
    .from(sessions)
    .where(openOf(userId))
    .orderBy(desc(sessions.createdAt));
  return rows.map((r) => ({
    id: r.publicId,
    createdAt: r.createdAt.toISOString(),
    lastActiveAt: r.lastActiveAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    userAgent: r.userAgent,
    current: r.id === currentId,
  }));
}

/**
 * Revokes the member's live session with this public id; its id (the token's hash), or null when
 * the member has no such session (another member's is as unknown as one that never was).
 */
export async function revokeSessionOfUser(db: Db, userId: string, publicId: string): Promise<string | null> {
  const [row] = await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(openOf(userId), eq(sessions.publicId, publicId)))
    .returning({ id: sessions.id });
  if (row) await endPushOfSessions(db, [row.id]);
  return row?.id ?? null;
}

/** Revokes a member's live sessions, all of them or all but `except`; the ids revoked. */
export async function revokeSessionsOfUser(db: Db, userId: string, except?: string): Promise<string[]> {
  const rows = await db
    .update(sessions)
    .set({ revokedAt: new Date() })
    .where(and(openOf(userId), except ? ne(sessions.id, except) : undefined))
    .returning({ id: sessions.id });
  await endPushOfSessions(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => r.id);
}

/**
 * The member behind a cookie token that no longer opens a session because they are banned
 * (an access attempt worth an event), else null.
 */
export async function bannedOwner(db: Db, token: string): Promise<string | null> {
  const [row] = await db
    .select({ id: users.id })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sha256Hex(token)), eq(users.isBanned, true)))
    .limit(1);
  return row?.id ?? null;
}

/** Which of these sessions (ids, the tokens' hashes) are still live. */
export async function liveSessionIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(sql`${sessions.id} = ANY(${sql.param(ids)}::text[])`, liveSession()));
  return new Set(rows.map((r) => r.id));
}
