/**
 * Sender keys (docs/security.md §4): who an epoch must be wrapped for, the upload of an epoch's
 * wrapped shares, and a member's own shares.
 */
import {
  errorCodes,
  GENERAL_CONVERSATION,
  isGroupConversation,
  limits,
  routes,
  type EpochShare,
  type OwnChannelShare,
} from '@enclave/protocol';
import { and, eq, inArray, isNotNull, lte, notExists, sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireAuth } from '../access/policy';
import { groupConversation, writableUser } from '../access/rules';
import { publicIdentityRefusal } from '../auth/public-keys';
import type { AppContext } from '../context';
import { pgErrorCode, UNIQUE_VIOLATION, type Db } from '../db/client';
import { channelShares, channelWraps, conversations, epochs, epochShares, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { conversationFor, conversationMembers, groupMembership, membershipVersion } from './membership';

export const membershipChanged = () =>
  new HttpError(409, errorCodes.membershipChanged, 'The members of this conversation changed: fetch them and rotate');

/** A member's stored share of a channel epoch with the signed header it was wrapped under. */
export function ownChannelShare(share: typeof channelShares.$inferSelect, wrap: typeof channelWraps.$inferSelect): OwnChannelShare {
  return {
    header: {
      conversationId: GENERAL_CONVERSATION,
      epochId: wrap.channelEpochId,
      generation: wrap.generation,
      wrapperId: wrap.wrapperId,
      ephemeralPublicKey: wrap.ephemeralPublicKey,
      signature: wrap.signature,
    },
    wrappedKey: share.wrappedKey,
  };
}

/**
 * A member's own shares of the given epochs (all of them without `epochIds`): an RSA-wrapped chain
 * key, or for a sender epoch derived from the channel key the member's share of that channel epoch.
 */
export async function sharesFor(db: Db, recipientId: string, epochIds?: string[]): Promise<EpochShare[]> {
  const epochFields = {
    epochId: epochs.id,
    conversationId: epochs.conversationId,
    senderId: epochs.senderId,
    membershipVersion: epochs.membershipVersion,
  };
  const asked = epochIds ? inArray(epochs.id, epochIds) : undefined;
  const [wrapped, derived, awaited] = await Promise.all([
    db
      .select({ ...epochFields, wrappedKey: epochShares.wrappedKey, signature: epochShares.signature })
      .from(epochShares)
      .innerJoin(epochs, eq(epochs.id, epochShares.epochId))
      .where(and(eq(epochShares.recipientId, recipientId), asked)),
    db
      .select({ ...epochFields, generation: epochs.channelGeneration, share: channelShares, wrap: channelWraps })
      .from(epochs)
      .innerJoin(channelShares, and(eq(channelShares.channelEpochId, epochs.channelEpochId), eq(channelShares.recipientId, recipientId)))
      .innerJoin(channelWraps, eq(channelWraps.id, channelShares.wrapId))
      // A share of a later generation opens nothing earlier: a newcomer has no way into what came before.
      .where(and(isNotNull(epochs.channelEpochId), lte(channelWraps.generation, epochs.channelGeneration), asked)),
    // Epochs of the channel key in force with no share for this member yet although they were in
    // the channel when the epoch was made: their share is coming (from the claimer's background
    // wrap, or from the next sender if that stopped). A retired key's never comes.
    db
      .select({ epochId: epochs.id })
      .from(epochs)
      .innerJoin(conversations, and(eq(conversations.id, epochs.conversationId), eq(conversations.channelEpochId, epochs.channelEpochId)))
      .innerJoin(
        users,
        and(
          eq(users.id, recipientId),
          writableUser(),
          isNotNull(users.sharePublicKey),
          lte(users.joinedVersion, sql`${conversations.channelBaseVersion} + ${epochs.channelGeneration}`),
        ),
      )
      .where(
        and(
          asked,
          notExists(
            db
              .select({ one: sql`1` })
              .from(channelShares)
              .where(and(eq(channelShares.channelEpochId, epochs.channelEpochId), eq(channelShares.recipientId, recipientId))),
          ),
        ),
      ),
  ]);
  return [
    ...wrapped,
    ...awaited.map(({ epochId }) => ({ epochId, awaiting: true as const })),
    ...derived.map(({ generation, share, wrap, ...epoch }) => ({
      ...epoch,
      channel: { generation: generation ?? 0, share: ownChannelShare(share, wrap) },
    })),
  ];
}

/** True when every one of these members has published keys no client can use (auth/public-keys.ts). */
async function allUnusable(db: Db, ids: string[]): Promise<boolean> {
  const rows = await db
    .select({ encryptionPublicKey: users.encryptionPublicKey, signingPublicKey: users.signingPublicKey })
    .from(users)
    .where(inArray(users.id, ids));
  return rows.length === ids.length && rows.every((keys) => publicIdentityRefusal(keys) !== null);
}

/**
 * Inside the caller's transaction, with the member set held still: the shares of a new epoch must
 * be for exactly the conversation's current members, each once, except those whose stored public
 * keys are not usable (docs/security.md §4): no client can wrap for them, so a sender leaves them
 * out (and tells its member) rather than one such account stopping the whole conversation.
 * Registration refuses such keys, so only accounts from before that check can be left out, and
 * the server checks each one: a member with a usable key can never be dropped.
 */
export async function assertSharesCover(tx: Db, conversationId: string, shares: readonly { recipientId: string }[]): Promise<void> {
  const members = await conversationMembers(tx, conversationId);
  const expected = new Set(members.map((m) => m.id));
  const given = new Set(shares.map((s) => s.recipientId));
  if (given.size !== shares.length || [...given].some((id) => !expected.has(id))) throw membershipChanged();
  const left = members.filter((m) => !given.has(m.id)).map((m) => m.id);
  if (left.length && !(await allUnusable(tx, left))) throw membershipChanged();
}

/** Inside the caller's transaction: an epoch and its shares, once (a reused id is a replay). */
export async function storeEpoch(
  tx: Db,
  epoch: { id: string; conversationId: string; senderId: string; membershipVersion: number },
  shares: readonly { recipientId: string; wrappedKey: string; signature: string }[],
): Promise<void> {
  try {
    await tx.insert(epochs).values(epoch);
  } catch (err) {
    if (pgErrorCode(err) === UNIQUE_VIOLATION) throw new HttpError(409, errorCodes.replay, 'This epoch already exists');
    throw err;
  }
  await tx.insert(epochShares).values(shares.map((s) => ({ epochId: epoch.id, ...s })));
}

/** Limits that count per member, not per address. */
export const perMember = (req: FastifyRequest) => req.auth?.user.id ?? req.ip;

export async function conversationRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  serve(app, routes.conversationMembers, async (req) => {
    const conversationId = await conversationFor(db, requireAuth(req).user.id, req.query.receiverId, 'write');
    const [version, members] = await Promise.all([membershipVersion(db, conversationId), conversationMembers(db, conversationId)]);
    return {
      conversationId,
      membershipVersion: version,
      members: members.map(({ id, encryptionPublicKey, sharePublicKey, shareKeySignature }) => ({
        id,
        encryptionPublicKey,
        ...(sharePublicKey && shareKeySignature ? { shareKey: { sharePublicKey, signature: shareKeySignature } } : {}),
      })),
    };
  });

  serve(
    app,
    routes.createEpoch,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { body } = req;
      const conversationId = await conversationFor(db, me, body.receiverId, 'write');
      await db.transaction(async (tx) => {
        // Hold the member set still while we check the shares cover exactly it.
        await tx.insert(conversations).values({ id: conversationId }).onConflictDoNothing();
        const [conv] = await tx.select().from(conversations).where(eq(conversations.id, conversationId)).for('share');
        if (conv?.membershipVersion !== body.membershipVersion) throw membershipChanged();
        // A group's member who left or was removed while this request waited is one no more.
        if (isGroupConversation(conversationId)) groupConversation(conversationId, await groupMembership(tx, conversationId, me));
        await assertSharesCover(tx, conversationId, body.shares);
        await storeEpoch(tx, { id: body.epochId, conversationId, senderId: me, membershipVersion: body.membershipVersion }, body.shares);
      });
      return { ok: true as const };
    },
    // Shares can be many (one per member of the channel, ~530 bytes each): this route alone
    // takes large bodies.
    { bodyLimit: limits.epochMaxRecipients * 640, rateLimit: rateLimit(ctx.config.rateLimits.epoch, perMember) },
  );

  serve(app, routes.epochShares, async (req) => ({ shares: await sharesFor(db, requireAuth(req).user.id, req.query.ids) }));
}
