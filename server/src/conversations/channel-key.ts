/**
 * The general channel's key (docs/scaling.md §6). One channel epoch is in force at a time; a join
 * moves the membership version, which is one generation of its secret, and costs the senders no
 * wrap: the first sender after it wraps the secret for the newcomer, since no sender epoch is taken
 * while a member with a share key has no share and nobody is wrapping for them. A removal
 * (moderation.ts) takes the epoch out of force, and one member's client, which claims it first,
 * makes the next: it uploads shares for the most recently signed-in members in batches that lock
 * nothing a send needs, activates it, and keeps its claim while it wraps for the rest (sends go on
 * meanwhile; a member reads once their share arrives, told by a `channel_share` frame).
 */
import { errorCodes, GENERAL_CONVERSATION, limits, routes, type ChannelKeyState, type UploadChannelShares } from '@enclave/protocol';
import { and, eq, inArray, isNotNull, notExists, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { writableUser } from '../access/rules';
import type { AppContext } from '../context';
import { FOREIGN_KEY_VIOLATION, pgErrorCode, UNIQUE_VIOLATION, type Db } from '../db/client';
import { channelEpochs, channelShares, channelWraps, conversations, epochs, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { channelShare } from '../realtime/publish';
import { membershipChanged, ownChannelShare, perMember } from './routes';

/** How long a claim holds without an upload before another member may make the epoch instead. */
export const CLAIM_MS = 2 * 60_000;

const conflict = (message: string) => new HttpError(409, errorCodes.conflict, message);

type ChannelRow = typeof conversations.$inferSelect;

/** The general channel's row, locked, made first if missing: for a claim or an activation. */
async function lockedChannelRow(tx: Db): Promise<ChannelRow> {
  await tx.insert(conversations).values({ id: GENERAL_CONVERSATION }).onConflictDoNothing();
  const [row] = await tx.select().from(conversations).where(eq(conversations.id, GENERAL_CONVERSATION)).for('no key update');
  if (!row) throw new Error('the general channel has no row');
  return row;
}

/** The general channel's row as it is, without writing: undefined before anything made it. */
async function channelRow(db: Db): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(conversations).where(eq(conversations.id, GENERAL_CONVERSATION));
  return row;
}

const claimHolds = (row: ChannelRow, now = new Date()) => row.rekeyBy !== null && row.rekeyUntil !== null && row.rekeyUntil > now;

/** The claimer of the epoch in force is still wrapping it for members who have no share. */
const backfilling = (row: ChannelRow) => row.channelEpochId !== null && row.rekeyEpochId === row.channelEpochId && claimHolds(row);

/** The earliest generation of an epoch taking force at `baseVersion` a member who joined at `joinedVersion` may be given. */
const joinGeneration = (joinedVersion: number, baseVersion: number | null) => Math.max(0, joinedVersion - (baseVersion ?? joinedVersion));

/**
 * Members of the channel with a share key and no share of `epochId`: whom it must still be wrapped
 * for, the most recently signed in first (those likeliest to be reading).
 */
function pendingMembers(db: Db, epochId: string, limit: number) {
  return db
    .select({
      id: users.id,
      sharePublicKey: users.sharePublicKey,
      signature: users.shareKeySignature,
      joinedVersion: users.joinedVersion,
    })
    .from(users)
    .where(
      and(
        writableUser(),
        isNotNull(users.sharePublicKey),
        notExists(
          db
            .select({ one: sql`1` })
            .from(channelShares)
            .where(and(eq(channelShares.channelEpochId, epochId), eq(channelShares.recipientId, users.id))),
        ),
      ),
    )
    .orderBy(sql`${users.lastActivity} desc nulls last`, users.id)
    .limit(limit);
}

async function channelState(db: Db, me: string): Promise<ChannelKeyState> {
  const row = await channelRow(db);
  if (!row) return { membershipVersion: 0, epoch: null, pending: [], rekey: null };
  let epoch: ChannelKeyState['epoch'] = null;
  if (row.channelEpochId !== null && row.channelBaseVersion !== null) {
    const [own] = await db
      .select({ share: channelShares, wrap: channelWraps })
      .from(channelShares)
      .innerJoin(channelWraps, eq(channelWraps.id, channelShares.wrapId))
      .where(and(eq(channelShares.channelEpochId, row.channelEpochId), eq(channelShares.recipientId, me)));
    epoch = { id: row.channelEpochId, baseVersion: row.channelBaseVersion, ownShare: own ? ownChannelShare(own.share, own.wrap) : null };
  }
  const rekey =
    claimHolds(row) && row.rekeyEpochId ? { by: row.rekeyBy!, epochId: row.rekeyEpochId, until: row.rekeyUntil!.toISOString() } : null;
  // The claimer wraps the epoch it claimed (or still wraps the one in force); while a claim holds,
  // nobody else does; otherwise any sender wraps the one in force for its newcomers.
  const wrapping = rekey ? (rekey.by === me ? rekey.epochId : null) : epoch?.id;
  const inForce = wrapping !== null && wrapping === epoch?.id;
  const rows = wrapping ? await pendingMembers(db, wrapping, limits.channelSharesPerUpload) : [];
  const pending = rows.flatMap((m) =>
    m.sharePublicKey && m.signature
      ? [
          {
            id: m.id,
            shareKey: { sharePublicKey: m.sharePublicKey, signature: m.signature },
            generation: inForce ? joinGeneration(m.joinedVersion, row.channelBaseVersion) : 0,
          },
        ]
      : [],
  );
  return { membershipVersion: row.membershipVersion, epoch, pending, rekey };
}

async function hasShare(db: Db, channelEpochId: string, memberId: string): Promise<boolean> {
  const [found] = await db
    .select({ one: sql`1` })
    .from(channelShares)
    .where(and(eq(channelShares.channelEpochId, channelEpochId), eq(channelShares.recipientId, memberId)));
  return found !== undefined;
}

/**
 * The caller's client will make the next channel epoch: refused while another member's claim
 * holds, and while one is in force that the caller holds a share of.
 */
async function claim(db: Db, me: string, epochId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await lockedChannelRow(tx);
    // A member nobody has wrapped the key in force for (a newcomer while no one else sends) may
    // make the next one, which takes its place at activation; anyone else has no need to.
    if (row.channelEpochId !== null && (await hasShare(tx, row.channelEpochId, me))) {
      throw conflict('The channel already has a key in force');
    }
    if (claimHolds(row) && row.rekeyBy !== me) throw conflict("Another member's client is making the channel's next key");
    // An abandoned claim's epoch, shares and all, gives way (not the one in force, which its claimer left half wrapped).
    if (row.rekeyEpochId !== null && row.rekeyEpochId !== epochId && row.rekeyEpochId !== row.channelEpochId)
      await tx.delete(channelEpochs).where(eq(channelEpochs.id, row.rekeyEpochId));
    // The same claim again (a retry) is this member's own epoch; anyone else's id is a replay.
    await tx.insert(channelEpochs).values({ id: epochId, conversationId: GENERAL_CONVERSATION, createdBy: me }).onConflictDoNothing();
    const [mine] = await tx.select({ by: channelEpochs.createdBy }).from(channelEpochs).where(eq(channelEpochs.id, epochId));
    if (mine?.by !== me) throw new HttpError(409, errorCodes.replay, 'This epoch already exists');
    await tx
      .update(conversations)
      .set({ rekeyBy: me, rekeyEpochId: epochId, rekeyUntil: new Date(Date.now() + CLAIM_MS) })
      .where(eq(conversations.id, GENERAL_CONVERSATION));
  });
}

/**
 * Stores one upload of shares and tells their recipients. Of the epoch in force, for members who
 * have none, at a generation from the latest recipient's joining to the current one; of the
 * caller's claimed epoch, at generation 0, for anyone in the channel. Nothing here locks the
 * channel's row, so sends never wait on it; a share already held is kept. The claimer's last
 * upload for the epoch in force ends its claim.
 */
async function uploadShares(ctx: AppContext, me: string, { header, shares }: UploadChannelShares): Promise<void> {
  const { db } = ctx;
  if (header.wrapperId !== me) throw new HttpError(400, errorCodes.invalidRequest, "header.wrapperId: must be the caller's id");
  const row = await channelRow(db);
  // No row: no epoch in force and none claimed.
  if (!row) throw membershipChanged();
  const inForce = header.epochId === row.channelEpochId && row.channelBaseVersion !== null;
  const claimed = header.epochId === row.rekeyEpochId && row.rekeyBy === me;
  if (inForce ? header.generation > row.membershipVersion - row.channelBaseVersion! : !claimed || header.generation !== 0) {
    throw membershipChanged();
  }
  const ids = shares.map((s) => s.recipientId);
  if (new Set(ids).size !== ids.length) throw new HttpError(400, errorCodes.invalidRequest, 'shares: one share per member');
  const members = await db
    .select({ id: users.id, joinedVersion: users.joinedVersion })
    .from(users)
    .where(and(inArray(users.id, ids), writableUser(), isNotNull(users.sharePublicKey)));
  if (members.length !== ids.length) throw membershipChanged();
  // A share of a generation before a member joined would open what was sent before they joined.
  if (inForce && members.some((m) => joinGeneration(m.joinedVersion, row.channelBaseVersion) > header.generation)) {
    throw new HttpError(400, errorCodes.invalidRequest, 'header.generation: earlier than a recipient joined');
  }
  const upload = db.transaction(async (tx): Promise<string[]> => {
    const [wrap] = await tx
      .insert(channelWraps)
      .values({
        channelEpochId: header.epochId,
        wrapperId: me,
        generation: header.generation,
        ephemeralPublicKey: header.ephemeralPublicKey,
        signature: header.signature,
      })
      .returning({ id: channelWraps.id });
    const stored = await tx
      .insert(channelShares)
      .values(
        shares.map((s) => ({ channelEpochId: header.epochId, recipientId: s.recipientId, wrapId: wrap!.id, wrappedKey: s.wrappedKey })),
      )
      .onConflictDoNothing()
      .returning({ id: channelShares.recipientId });
    // Every member named had a share already: the header is kept for no one, so repeating an upload stores nothing.
    if (stored.length === 0) await tx.delete(channelWraps).where(eq(channelWraps.id, wrap!.id));
    return stored.map((s) => s.id);
  });
  // A claim that lapsed meanwhile may have given way to another, its epoch deleted with it.
  const recipients = await upload.catch((err: unknown) => {
    throw pgErrorCode(err) === FOREIGN_KEY_VIOLATION ? membershipChanged() : err;
  });
  if (claimed) {
    const done = inForce && (await pendingMembers(db, header.epochId, 1)).length === 0;
    await db
      .update(conversations)
      .set(done ? { rekeyBy: null, rekeyEpochId: null, rekeyUntil: null } : { rekeyUntil: new Date(Date.now() + CLAIM_MS) })
      .where(and(eq(conversations.id, GENERAL_CONVERSATION), eq(conversations.rekeyEpochId, header.epochId)));
  }
  // Shares of an epoch not yet in force open nothing sent so far: nobody waits for them.
  if (inForce && recipients.length) await channelShare(ctx.gateway, recipients, header.epochId);
}

/**
 * The claimed epoch takes force at the current membership version (its generation 0). Shares of
 * members removed while it was uploaded are deleted first, in the same transaction. While members
 * are left without a share, the claim holds on (its claimer wraps for them, and sends go on);
 * otherwise it ends.
 */
async function activate(db: Db, me: string, epochId: string): Promise<void> {
  await db.transaction(async (tx) => {
    const row = await lockedChannelRow(tx);
    if (row.rekeyEpochId !== epochId || row.rekeyBy !== me) throw membershipChanged();
    await tx.delete(channelShares).where(
      and(
        eq(channelShares.channelEpochId, epochId),
        notExists(
          tx
            .select({ one: sql`1` })
            .from(users)
            .where(and(eq(users.id, channelShares.recipientId), writableUser())),
        ),
      ),
    );
    const left = (await pendingMembers(tx, epochId, 1)).length > 0;
    await tx
      .update(conversations)
      .set({
        channelEpochId: epochId,
        channelBaseVersion: row.membershipVersion,
        ...(left ? { rekeyUntil: new Date(Date.now() + CLAIM_MS) } : { rekeyBy: null, rekeyEpochId: null, rekeyUntil: null }),
      })
      .where(eq(conversations.id, GENERAL_CONVERSATION));
  });
}

/**
 * A sender epoch whose chain is derived from the channel key at the current generation. No lock:
 * a send checks the epoch's membership version again under the channel's row lock
 * (messages/store.ts), so an epoch a join or a removal made stale meanwhile stores nothing.
 */
async function createSenderEpoch(
  db: Db,
  me: string,
  body: { epochId: string; channelEpochId: string; membershipVersion: number },
): Promise<void> {
  const row = await channelRow(db);
  if (
    !row ||
    row.membershipVersion !== body.membershipVersion ||
    row.channelEpochId !== body.channelEpochId ||
    row.channelBaseVersion === null
  ) {
    throw membershipChanged();
  }
  // Every member who can be wrapped for must hold the secret before anyone sends under it, or be
  // on the list of the claimer still wrapping it (they read once their share arrives).
  if (!backfilling(row) && (await pendingMembers(db, body.channelEpochId, 1)).length) throw membershipChanged();
  try {
    await db.insert(epochs).values({
      id: body.epochId,
      conversationId: GENERAL_CONVERSATION,
      senderId: me,
      membershipVersion: body.membershipVersion,
      channelEpochId: body.channelEpochId,
      channelGeneration: body.membershipVersion - row.channelBaseVersion,
    });
  } catch (err) {
    if (pgErrorCode(err) === UNIQUE_VIOLATION) throw new HttpError(409, errorCodes.replay, 'This epoch already exists');
    throw err;
  }
}

/**
 * Inside a removal's transaction: the channel's key leaves force, with any claim to go on wrapping
 * it; the next one is made without the removed.
 */
export async function retireChannelKey(tx: Db): Promise<void> {
  await tx
    .update(conversations)
    .set({ rekeyBy: null, rekeyEpochId: null, rekeyUntil: null })
    .where(and(eq(conversations.id, GENERAL_CONVERSATION), eq(conversations.rekeyEpochId, conversations.channelEpochId)));
  await tx.update(conversations).set({ channelEpochId: null, channelBaseVersion: null }).where(eq(conversations.id, GENERAL_CONVERSATION));
}

export async function channelKeyRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config } = ctx;
  serve(app, routes.channelKey, async (req) => channelState(db, requireAuth(req).user.id));
  serve(
    app,
    routes.claimChannelEpoch,
    async (req) => {
      await claim(db, requireAuth(req).user.id, req.body.epochId);
      return { ok: true as const };
    },
    { rateLimit: rateLimit(config.rateLimits.epoch, perMember) },
  );
  serve(
    app,
    routes.uploadChannelShares,
    async (req) => {
      await uploadShares(ctx, requireAuth(req).user.id, req.body);
      return { ok: true as const };
    },
    // A share is 127 bytes of JSON, every one the same size (its fields have fixed lengths): 5,000 and the header fit.
    { bodyLimit: limits.channelSharesPerUpload * 128, rateLimit: rateLimit(config.rateLimits.channelShares, perMember) },
  );
  serve(
    app,
    routes.activateChannelEpoch,
    async (req) => {
      await activate(db, requireAuth(req).user.id, req.body.epochId);
      return { ok: true as const };
    },
    { rateLimit: rateLimit(config.rateLimits.epoch, perMember) },
  );
  serve(
    app,
    routes.createSenderEpoch,
    async (req) => {
      await createSenderEpoch(db, requireAuth(req).user.id, req.body);
      return { ok: true as const };
    },
    { rateLimit: rateLimit(config.rateLimits.send, perMember) },
  );
}
