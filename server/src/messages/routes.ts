/** Messages: history and catch-up, and sending (the server stores and relays ciphertext only). */
import {
  conversationIdFor,
  errorCodes,
  errorTexts,
  isGroupConversation,
  limits,
  messageEnvelopeSchema,
  routes,
  type Message,
  type SendMessageRequest,
  type TimelineEvent,
} from '@enclave/protocol';
import { and, asc, desc, eq, gt, gte, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { assertOwnEpoch } from '../access/rules';
import type { AppContext } from '../context';
import { linkAttachments } from '../attachments/service';
import { liveSessionIds } from '../auth/sessions';
import { audienceOf, conversationFor, membershipVersion, readWindowOf } from '../conversations/membership';
import { membershipChanged, perMember, sharesFor } from '../conversations/routes';
import type { Db } from '../db/client';
import { epochs, messages, users } from '../db/schema';
import { describeIssues, HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { ActivityLog } from '../users/activity';
import { notErasedAnnotation, oneMessageRoute, targetRefusal } from './annotations';
import { deletedNote, disappearingRoutes, disappearingTimer, timerEventsPage, toTimelineEvent } from './disappearing';
import { insertMessage, messageColumns, storedColumns, type StoredRow } from './store';
import { typingFrameFailed, typingFrameHandler } from './typing';
import { chatMessage } from '../realtime/publish';

type MessageRow = StoredRow & { senderUsername: string };

/** A row whose content is held (not erased) as a message. */
const toMessage = ({ createdAt, expiresAt, encryptedContent, ...m }: MessageRow & { encryptedContent: string }): Message => ({
  ...m,
  encryptedContent,
  timestamp: createdAt.toISOString(),
  expiresAt: expiresAt?.toISOString() ?? null,
});

const held = (row: MessageRow): row is MessageRow & { encryptedContent: string } => row.encryptedContent !== null;

export async function messageRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;
  ctx.gateway.frames.handle('typing', typingFrameHandler(ctx), typingFrameFailed);
  const activity = new ActivityLog(db, app.log);
  app.addHook('onClose', () => activity.close());
  await disappearingRoutes(app, ctx);
  oneMessageRoute(app, ctx);

  serve(app, routes.history, async (req) => {
    const auth = requireAuth(req);
    const q = req.query;
    // Reading: the history with a member banned or wiped since stays readable (access/rules.ts).
    const conversationId = await conversationFor(db, auth.user.id, q.receiverId, 'read');
    // The channel's (a group's) earlier messages were never wrapped for a newcomer: do not ship them at all.
    const window = await readWindowOf(db, auth.user, conversationId);
    // Removed from the group since conversationFor looked: nothing of it is theirs any more.
    if (!window) throw new HttpError(404, errorCodes.notFound, 'No such group');
    const since = window.since ?? undefined;
    const conds: (SQL | undefined)[] = [
      eq(messages.conversationId, conversationId),
      since && gte(messages.createdAt, since),
      // An expired message is gone for readers from its time on, whether or not the sweep erased it yet.
      or(isNull(messages.expiresAt), gt(messages.expiresAt, sql`now()`)),
      notErasedAnnotation,
      q.before ? lt(messages.id, q.before) : undefined,
      q.after ? gt(messages.id, q.after) : undefined,
    ];
    // One snapshot for both tables: a timer change seen without a message committed before it
    // would move the reader's cursor past that message.
    const { rows, timers, seconds } = await db.transaction(
      async (tx) => ({
        rows: await tx
          .select(messageColumns)
          .from(messages)
          .innerJoin(users, eq(users.id, messages.senderId))
          .where(and(...conds))
          .orderBy(q.after ? asc(messages.id) : desc(messages.id))
          .limit(q.limit + 1),
        timers: await timerEventsPage(tx, conversationId, { ...q, since }),
        seconds: await disappearingTimer(tx, conversationId),
      }),
      { isolationLevel: 'repeatable read', accessMode: 'read only' },
    );
    // Messages, deletion notes and timer changes share one id order: the page is the first `limit` of them.
    type Item = { id: number; message?: Message; event?: TimelineEvent };
    const items: Item[] = [
      ...rows.map((r) => (held(r) ? { id: r.id, message: toMessage(r) } : { id: r.id, event: deletedNote(r) })),
      ...timers.map((t) => ({ id: t.id, event: toTimelineEvent(t) })),
    ].sort((a, b) => (q.after ? a.id - b.id : b.id - a.id));
    const hasMore = items.length > q.limit;
    const page = items.slice(0, q.limit);
    if (!q.after) page.reverse();
    const pageMessages = page.flatMap((i) => (i.message ? [i.message] : []));
    const epochIds = [...new Set(pageMessages.map((m) => m.epochId))];
    // Only the caller's own shares (sharesFor filters on the recipient): never another member's.
    const shares = epochIds.length ? await sharesFor(db, auth.user.id, epochIds) : [];
    return {
      messages: pageMessages,
      events: page.flatMap((i) => (i.event ? [i.event] : [])),
      disappearingSeconds: seconds,
      hasMore,
      shares,
    };
  });

  serve(
    app,
    routes.sendMessage,
    async (req) => {
      const auth = requireAuth(req);
      const me = auth.user.id;
      const { body } = req;
      // The server cannot read the text, but it can refuse what no client could open or what is too long.
      const raw = safeJson(body.encryptedContent);
      const envelope = messageEnvelopeSchema.safeParse(raw);
      if (!envelope.success) {
        const ct = (raw as { ct?: unknown } | null)?.ct;
        const maxBytes = (raw as { v?: unknown } | null)?.v === 2 ? limits.bodyCiphertextMaxBytes : limits.ciphertextMaxBytes;
        if (typeof ct === 'string' && Buffer.from(ct, 'base64').length > maxBytes) {
          throw new HttpError(400, errorCodes.invalidRequest, errorTexts.messageTooLong);
        }
        throw new HttpError(400, errorCodes.invalidRequest, `encryptedContent: ${describeIssues(envelope.error)}`);
      }
      // Published again whenever it is answered, a resend included: the instance that stored it may
      // have died before publishing it. Members hold a message once however often it comes.
      const conversationId = conversationIdFor(me, body.receiverId);
      const publish = async (message: Message) => chatMessage(ctx.gateway, await audienceOf(db, conversationId), message);
      // A DM's peer must still be writable when the message is stored (the insert checks it).
      const peerId = body.receiverId === 'all' || isGroupConversation(body.receiverId) ? null : body.receiverId;
      if (body.targetId !== undefined && body.attachmentIds?.length) {
        throw new HttpError(400, errorCodes.invalidRequest, 'A reaction or an edit carries no attachments');
      }
      // The hot path, one statement: the session was read by the access check (policy.ts).
      const store = (tx: Db) =>
        insertMessage(tx, {
          sessionId: auth.sessionId,
          senderId: me,
          conversationId,
          peerId,
          epochId: body.epochId,
          index: body.index,
          encryptedContent: body.encryptedContent,
          clientMessageId: body.clientMessageId ?? null,
          targetId: body.targetId ?? null,
          disappearingCapMs: ctx.config.disappearingCapMs ?? null,
        });
      // Committed with the sends that arrive meanwhile, and answered only after the commit
      // (db/group-commit.ts); a message with attachments links them in the same transaction.
      const attachmentIds = body.attachmentIds ?? [];
      const inserted = await ctx.sends.run(
        async (tx) => {
          const row = await store(tx);
          if (row && attachmentIds.length)
            await linkAttachments(tx, {
              ids: attachmentIds,
              senderId: me,
              conversationId,
              messageId: row.id,
              orphanAfterMs: ctx.config.attachments.orphanAfterMs,
            });
          return row;
        },
        { single: !attachmentIds.length },
      );
      const row = inserted ?? (await resentOrRefused(db, auth.sessionId, auth.user, conversationId, body));
      const message = toMessage({ ...row, encryptedContent: body.encryptedContent, senderUsername: auth.user.username });
      // The message is stored: nothing after this may turn it into an error, or the sender would
      // send it again. A member who misses the frame catches up from the database.
      if (inserted) {
        activity.note(me, row.createdAt);
        ctx.tally.sendsStored += 1;
        // Members with no socket open are told by Web Push; queued, never awaited (push/sender.ts).
        ctx.push.messageStored({ conversationId, senderId: me, peerId });
      }
      await publish(message);
      return { message };
    },
    { rateLimit: rateLimit(ctx.config.rateLimits.send, perMember) },
  );
}

/**
 * The message this sender already stored under this client id, if any. The same id on a different
 * message is refused: a resend carries exactly what was sent.
 */
async function storedResend(db: Db, me: string, body: SendMessageRequest): Promise<StoredRow | undefined> {
  if (!body.clientMessageId) return undefined;
  const [stored] = await db
    .select(storedColumns)
    .from(messages)
    .where(and(eq(messages.senderId, me), eq(messages.clientMessageId, body.clientMessageId)))
    .limit(1);
  if (!stored) return undefined;
  // Erased meanwhile (expired, or deleted by its sender): answering it would bring it back.
  if (stored.encryptedContent === null) throw new HttpError(409, errorCodes.replay, 'This message was already deleted');
  const same =
    stored.conversationId === conversationIdFor(me, body.receiverId) &&
    stored.epochId === body.epochId &&
    stored.index === body.index &&
    stored.encryptedContent === body.encryptedContent &&
    stored.targetId === (body.targetId ?? null);
  if (!same) throw new HttpError(409, errorCodes.replay, 'This message id was already used for another message');
  return stored;
}

/**
 * A send that stored nothing, looked into only then (the hot path is the one insert): a resend of
 * a message already stored (its answer was lost) gets that message, not a second one, even if the
 * members have moved since. Anything else is refused with its reason: the session ended, the peer
 * cannot be written to, the epoch is not the sender's for this conversation, its member set has
 * moved, an annotation's target is not one it may annotate, or else its (epoch, index) was taken.
 */
async function resentOrRefused(
  db: Db,
  sessionId: string,
  user: { id: string; createdAt: Date },
  conversationId: string,
  body: SendMessageRequest,
): Promise<StoredRow> {
  const me = user.id;
  if (!(await liveSessionIds(db, [sessionId])).has(sessionId)) throw new HttpError(401, errorCodes.unauthorized, errorTexts.notSignedIn);
  const resent = await storedResend(db, me, body);
  if (resent) return resent;
  await conversationFor(db, me, body.receiverId, 'write');
  const [epoch] = await db.select().from(epochs).where(eq(epochs.id, body.epochId)).limit(1);
  assertOwnEpoch(me, conversationId, epoch);
  if ((await membershipVersion(db, conversationId)) !== epoch.membershipVersion) throw membershipChanged();
  const refusal = body.targetId === undefined ? null : await targetRefusal(db, user, conversationId, body.targetId);
  if (refusal) throw refusal;
  throw new HttpError(409, errorCodes.replay, 'This message index was already used in this epoch');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, errorCodes.invalidRequest, 'encryptedContent is not a message envelope');
  }
}
