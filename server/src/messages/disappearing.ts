/**
 * Disappearing messages and deletion for everyone (docs/security.md §4): the per-conversation
 * timer and its announcements, a sender erasing their own message, and the sweep that erases
 * expired ones. Erasing keeps the row with its content NULL (a tombstone): its (epoch_id, index)
 * still refuses a replay, and readers' id cursors keep their order.
 */
import { disappearingTimerSchema, routes, type DisappearingTimer, type TimelineEvent } from '@enclave/protocol';
import { and, asc, desc, eq, gt, gte, inArray, isNotNull, lt, lte, sql } from 'drizzle-orm';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { deletionRefusal, timerRefusal } from '../access/rules';
import type { AppContext } from '../context';
import { deleteMessageAttachments } from '../attachments/service';
import { audienceOf, conversationFor, readWindowOf } from '../conversations/membership';
import type { Db } from '../db/client';
import { conversations, messages, timerChanges } from '../db/schema';
import { perMember } from '../conversations/routes';
import { rateLimit, serve } from '../http/routes';
import { messagesDeleted, timelineEvent } from '../realtime/publish';
import { eraseAnnotationsOf } from './annotations';

/** How often each instance looks for expired messages: a message outlives its time by at most this. */
export const EXPIRY_SWEEP_MS = 5_000;
/** Rows one sweep erases at most; the next sweep takes the rest. */
const SWEEP_BATCH = 1_000;

/** A conversation's timer now (0 when it has no row yet). */
export async function disappearingTimer(db: Db, conversationId: string): Promise<DisappearingTimer> {
  const [row] = await db
    .select({ seconds: conversations.disappearingSeconds })
    .from(conversations)
    .where(eq(conversations.id, conversationId));
  return disappearingTimerSchema.parse(row?.seconds ?? 0);
}

type TimerRow = typeof timerChanges.$inferSelect;

export const toTimelineEvent = (t: TimerRow): TimelineEvent => ({
  id: t.id,
  conversationId: t.conversationId,
  actorId: t.actorId,
  timestamp: t.createdAt.toISOString(),
  event: { kind: 'timer_set', seconds: disappearingTimerSchema.parse(t.seconds) },
});

/** The note a message deleted by its sender leaves in the timeline, at the message's id. */
export const deletedNote = (m: { id: number; conversationId: string; senderId: string; createdAt: Date }): TimelineEvent => ({
  id: m.id,
  conversationId: m.conversationId,
  actorId: m.senderId,
  timestamp: m.createdAt.toISOString(),
  event: { kind: 'message_deleted' },
});

/** The timer changes of one history page (the same cursor and bounds as its messages). */
export function timerEventsPage(
  db: Db,
  conversationId: string,
  q: { before?: number; after?: number; limit: number; since?: Date },
): Promise<TimerRow[]> {
  return db
    .select()
    .from(timerChanges)
    .where(
      and(
        eq(timerChanges.conversationId, conversationId),
        q.since && gte(timerChanges.createdAt, q.since),
        q.before ? lt(timerChanges.id, q.before) : undefined,
        q.after ? gt(timerChanges.id, q.after) : undefined,
      ),
    )
    .orderBy(q.after ? asc(timerChanges.id) : desc(timerChanges.id))
    .limit(q.limit + 1);
}

export async function disappearingRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const { db, gateway } = ctx;

  serve(
    app,
    routes.setDisappearing,
    async (req) => {
      const auth = requireAuth(req);
      const { receiverId, seconds } = req.body;
      const conversationId = await conversationFor(db, auth.user.id, receiverId, 'write');
      const refusal = timerRefusal(auth.user, conversationId);
      if (refusal) throw refusal;
      const row = await db.transaction(async (tx) => {
        // The update locks the conversation's row as a send does: messages stored before it keep the
        // old timer, those after it take the new one, and the announcement's id falls between them.
        await tx
          .insert(conversations)
          .values({ id: conversationId, disappearingSeconds: seconds })
          .onConflictDoUpdate({ target: conversations.id, set: { disappearingSeconds: seconds } });
        const [inserted] = await tx.insert(timerChanges).values({ conversationId, actorId: auth.user.id, seconds }).returning();
        if (!inserted) throw new Error('timer change returned no row');
        return inserted;
      });
      const event = toTimelineEvent(row);
      await timelineEvent(gateway, await audienceOf(db, conversationId), event);
      return { event };
    },
    { rateLimit: rateLimit(ctx.config.rateLimits.timerChange, perMember) },
  );

  serve(app, routes.deleteMessage, async (req) => {
    const auth = requireAuth(req);
    const { id } = req.params;
    const [target] = await db
      .select({ senderId: messages.senderId, conversationId: messages.conversationId, content: messages.encryptedContent })
      .from(messages)
      .where(eq(messages.id, id));
    const window = target ? await readWindowOf(db, auth.user, target.conversationId) : null;
    const refusal = deletionRefusal(auth.user.id, target && { ...target, erased: target.content === null }, window);
    if (refusal || !target) throw refusal;
    // Its annotations (reactions, edits) go with it, in the same transaction (annotations.ts).
    const erased = await db.transaction(async (tx) => {
      const own = await tx
        .update(messages)
        .set({ encryptedContent: null })
        .where(and(eq(messages.id, id), isNotNull(messages.encryptedContent)))
        .returning({ id: messages.id });
      return [
        ...own,
        ...(await eraseAnnotationsOf(
          tx,
          own.map((m) => m.id),
        )),
      ];
    });
    // None when the sweep erased it meanwhile (and said so, and took its attachments): it is gone either way.
    if (erased.length > 0) {
      ctx.scrubber.erased('messages');
      const ids = erased.map((m) => m.id);
      await messagesDeleted(gateway, await audienceOf(db, target.conversationId), target.conversationId, ids, 'deleted');
      // The message is erased whatever the attachment store says: a blob it could not delete now, the sweep deletes later.
      await deleteMessageAttachments(db, ctx.attachments, ids).catch((err: unknown) =>
        req.log.warn({ err }, 'could not delete an erased message’s attachments yet; the sweep will'),
      );
    }
    return { ok: true as const };
  });

  // Every instance sweeps (SKIP LOCKED hands each expired row to one of them); one sweep at a time here.
  let sweeping: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    sweeping ??= sweepExpired(ctx)
      .catch((err: unknown) => logSweepError(app.log, err))
      .finally(() => (sweeping = null));
  }, EXPIRY_SWEEP_MS);
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await sweeping;
  });
}

function logSweepError(log: FastifyBaseLogger, err: unknown): void {
  // The database may be away for a while: the next sweep takes what this one left.
  log.warn({ err }, 'could not erase expired messages');
}

/**
 * Erases the content of every message past its expiry (at most one batch) and publishes one
 * `messages_deleted` frame per conversation; their attachments go too. Answers how many it erased.
 */
export async function sweepExpired({
  db,
  gateway,
  attachments,
  scrubber,
}: Pick<AppContext, 'db' | 'gateway' | 'attachments' | 'scrubber'>): Promise<number> {
  const due = db
    .select({ id: messages.id })
    .from(messages)
    .where(and(isNotNull(messages.encryptedContent), lte(messages.expiresAt, sql`now()`)))
    .limit(SWEEP_BATCH)
    .for('update', { skipLocked: true });
  // Annotations of an expired message go with it (they expire no later, but may be locked or past this batch).
  const erased = await db.transaction(async (tx) => {
    const own = await tx
      .update(messages)
      .set({ encryptedContent: null })
      .where(inArray(messages.id, due))
      .returning({ id: messages.id, conversationId: messages.conversationId });
    return [
      ...own,
      ...(await eraseAnnotationsOf(
        tx,
        own.map((m) => m.id),
      )),
    ];
  });
  if (erased.length) scrubber.erased('messages');
  const byConversation = new Map<string, number[]>();
  for (const m of erased) byConversation.set(m.conversationId, [...(byConversation.get(m.conversationId) ?? []), m.id]);
  for (const [conversationId, ids] of byConversation) {
    await messagesDeleted(gateway, await audienceOf(db, conversationId), conversationId, ids, 'expired');
  }
  // After the erase committed; blobs the store could not delete are retried by its sweep (attachments/service.ts).
  await deleteMessageAttachments(
    db,
    attachments,
    erased.map((m) => m.id),
  );
  return erased.length;
}
