/**
 * The rules a query applies as SQL, held to the same table as their TypeScript form against a real
 * database: a live session (auth/sessions.ts `liveSession`, used by the session read and by the
 * send's insert) and a writable peer (rules.ts `isWritable` and `writableUser`, used by the send's
 * insert and the key recipients). Every combination of banned, wiped, locked, revoked and expired.
 */
import { conversationIdFor, GENERAL_CONVERSATION } from '@enclave/protocol';
import { randomBytes, randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveSession, liveSessionIds, resolveSession, sha256Hex } from '../auth/sessions';
import { conversationMembers } from '../conversations/membership';
import type { Db } from '../db/client';
import { conversations, epochs, sessions, users } from '../db/schema';
import { insertMessage } from '../messages/store';
import { backends, makeDatabase } from '../testing/harness';
import { conversationWith, isWritable } from './rules';

type Standing = { banned: boolean; wiped: boolean; locked: boolean };
type SessionCase = Standing & { revoked: boolean; expired: boolean };

/** Every assignment of true and false to `keys`. */
function combinations<K extends string>(keys: readonly K[]): Record<K, boolean>[] {
  return Array.from(
    { length: 2 ** keys.length },
    (_, n) => Object.fromEntries(keys.map((k, i) => [k, Boolean(n & (1 << i))])) as Record<K, boolean>,
  );
}
const named = (c: Record<string, boolean>) =>
  Object.entries(c)
    .filter(([, v]) => v)
    .map(([k]) => k)
    .join(', ') || 'none';

/** The rule as the specification words it: a session is live unless any of these holds. */
const live = (c: SessionCase) => !c.revoked && !c.expired && !c.banned && !c.wiped && !c.locked;

const sessionCases = combinations(['banned', 'wiped', 'locked', 'revoked', 'expired'] as const);
const peerCases = combinations(['banned', 'wiped', 'locked'] as const);
const HOUR = 60 * 60 * 1000;

async function insertMember(db: Db, standing: Standing): Promise<string> {
  const [row] = await db
    .insert(users)
    .values({
      username: `m${randomBytes(6).toString('hex')}`,
      loginKeyHash: randomBytes(32).toString('hex'),
      encryptionPublicKey: 'enc',
      signingPublicKey: 'sig',
      encryptedPrivateKey: 'bundle',
      isBanned: standing.banned,
      isCompromised: standing.wiped,
      isLocked: standing.locked,
    })
    .returning({ id: users.id });
  return row!.id;
}

/** A session of `userId` in the given state; its cookie token. */
async function insertSession(db: Db, userId: string, c: Pick<SessionCase, 'revoked' | 'expired'>): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const now = Date.now();
  await db.insert(sessions).values({
    id: sha256Hex(token),
    userId,
    expiresAt: new Date(now + (c.expired ? -HOUR : HOUR)),
    revokedAt: c.revoked ? new Date(now - HOUR) : null,
  });
  return token;
}

/** An epoch of `senderId` in the conversation at its current member set (version 1). */
async function insertEpoch(db: Db, conversationId: string, senderId: string): Promise<string> {
  await db.insert(conversations).values({ id: conversationId, membershipVersion: 1 }).onConflictDoNothing();
  const id = randomUUID();
  await db.insert(epochs).values({ id, conversationId, senderId, membershipVersion: 1 });
  return id;
}

const send = (db: Db, m: { token: string; senderId: string; conversationId: string; peerId: string | null; epochId: string }) =>
  insertMessage(db, {
    sessionId: sha256Hex(m.token),
    senderId: m.senderId,
    conversationId: m.conversationId,
    peerId: m.peerId,
    epochId: m.epochId,
    index: 0,
    encryptedContent: 'x',
    clientMessageId: null,
    disappearingCapMs: null,
  });

describe.each(backends)('rules a query applies, as SQL and as TypeScript (%s)', (backend) => {
  let db: Db;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const made = await makeDatabase(backend);
    db = made.database.db;
    drop = async () => {
      await made.database.close();
      await made.drop();
    };
  });
  afterAll(() => drop());

  it.each(sessionCases.map((c) => [named(c), c] as const))('a session with %s: live exactly when the rule says', async (_name, c) => {
    const userId = await insertMember(db, c);
    const token = await insertSession(db, userId, c);
    const expected = live(c);

    const [byFragment] = await db
      .select({ id: sessions.id })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(eq(sessions.id, sha256Hex(token)), liveSession()));
    expect(byFragment !== undefined).toBe(expected);
    // Both places that use it: the session read of every request, and the send's insert.
    expect((await resolveSession(db, token)) !== null).toBe(expected);
    expect((await liveSessionIds(db, [sha256Hex(token)])).size === 1).toBe(expected);
    const epochId = await insertEpoch(db, GENERAL_CONVERSATION, userId);
    const stored = await send(db, { token, senderId: userId, conversationId: GENERAL_CONVERSATION, peerId: null, epochId });
    expect(stored !== undefined).toBe(expected);
  });

  it.each(peerCases.map((c) => [named(c), c] as const))('a peer with %s: writable exactly when the rule says', async (_name, c) => {
    const senderId = await insertMember(db, { banned: false, wiped: false, locked: false });
    const token = await insertSession(db, senderId, { revoked: false, expired: false });
    const peerId = await insertMember(db, c);
    const expected = isWritable({ isBanned: c.banned, isCompromised: c.wiped });
    const conversationId = conversationIdFor(senderId, peerId);

    // The route's check (the TypeScript rule) ...
    const write = () => conversationWith(senderId, peerId, { id: peerId, isBanned: c.banned, isCompromised: c.wiped }, 'write');
    if (expected) expect(write()).toBe(conversationId);
    else expect(write).toThrow('This member is banned');
    // ... and the queries that apply its SQL form: the send's insert and the key recipients.
    const epochId = await insertEpoch(db, conversationId, senderId);
    const stored = await send(db, { token, senderId, conversationId, peerId, epochId });
    expect(stored !== undefined).toBe(expected);
    expect((await conversationMembers(db, conversationId)).some((m) => m.id === peerId)).toBe(expected);
  });

  it('the stored row reads back as the query builder would read it', async () => {
    const senderId = await insertMember(db, { banned: false, wiped: false, locked: false });
    const token = await insertSession(db, senderId, { revoked: false, expired: false });
    const epochId = await insertEpoch(db, GENERAL_CONVERSATION, senderId);
    const stored = await send(db, { token, senderId, conversationId: GENERAL_CONVERSATION, peerId: null, epochId });
    expect(stored).toEqual({
      id: expect.any(Number),
      conversationId: GENERAL_CONVERSATION,
      senderId,
      epochId,
      index: 0,
      encryptedContent: 'x',
      createdAt: expect.any(Date),
      expiresAt: null,
      clientMessageId: null,
      targetId: null,
    });
    expect(Number.isNaN(stored!.createdAt.getTime())).toBe(false);
  });
});
