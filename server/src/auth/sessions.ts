import { createHash, randomBytes } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions, users } from '../db/schema';

export const SESSION_COOKIE = 'enclave_session';
export const SESSION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

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

/** Issues a session: the browser gets a random token, the database only its hash. */
export async function createSession(db: Db, userId: string): Promise<{ token: string; expiresAt: Date }> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + SESSION_TTL_MS);
  await db.insert(sessions).values({ id: sha256Hex(token), userId, expiresAt });
  return { token, expiresAt };
}

/** A session is live while neither revoked nor expired, and its member neither banned nor wiped. */
const live = () =>
  and(isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date()), eq(users.isBanned, false), eq(users.isCompromised, false));

/** The live session behind a cookie token; banned members have none. */
export async function resolveSession(db: Db, token: string): Promise<AuthContext | null> {
  const id = sha256Hex(token);
  const [row] = await db
    .select({
      expiresAt: sessions.expiresAt,
      id: users.id,
      username: users.username,
      role: users.role,
      isCreatorAccount: users.isCreatorAccount,
      createdAt: users.createdAt,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, id), live()))
    .limit(1);
  if (!row) return null;
  const { expiresAt, ...user } = row;
  return { sessionId: id, expiresAt, user };
}

export async function revokeSession(db: Db, sessionId: string): Promise<void> {
  await db.update(sessions).set({ revokedAt: new Date() }).where(eq(sessions.id, sessionId));
}

/** Which of these sessions (ids, the tokens' hashes) are still live. */
export async function liveSessionIds(db: Db, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(sql`${sessions.id} = ANY(${sql.param(ids)}::text[])`, live()));
  return new Set(rows.map((r) => r.id));
}
