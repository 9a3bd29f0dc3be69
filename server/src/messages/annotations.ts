/**
 * What the server does for replies, reactions and edits (docs/architecture.md, messages): it never
 * sees a reply's target nor an annotation's kind, only an annotation's `targetId`, which it checks
 * on send and erases along with its target. `GET /api/messages/:id` hands a reader one message (a
 * reply's quote whose target is not loaded).
 */
import { errorCodes, errorTexts, routes, type Message } from '@enclave/protocol';
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { readsAt } from '../access/rules';
import { readWindowOf } from '../conversations/membership';
import type { AppContext } from '../context';
import { sharesFor } from '../conversations/routes';
import type { Db } from '../db/client';
import { messages, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { serve } from '../http/routes';
import { messageColumns } from './store';

type Reader = { id: string; createdAt: Date };
type Target = { conversationId: string; createdAt: Date; erased: boolean; expiresAt: Date | null; targetId: number | null };

/** Whether `me` may see that a message exists: it falls in their read window of its conversation (access/rules.ts). */
const visibleTo = async (db: Db, me: Reader, t: Target) => readsAt(await readWindowOf(db, me, t.conversationId), t.createdAt);

const gone = (t: Target) => t.erased || (t.expiresAt !== null && t.expiresAt <= new Date());

const noSuchMessage = () => new HttpError(404, errorCodes.notFound, 'No such message');
const messageDeleted = () => new HttpError(404, errorCodes.notFound, errorTexts.messageDeleted);

async function target(db: Db, id: number) {
  const [row] = await db.select(messageColumns).from(messages).innerJoin(users, eq(users.id, messages.senderId)).where(eq(messages.id, id));
  return row && { ...row, erased: row.encryptedContent === null };
}

/**
 * Why an annotation of `targetId` in `conversationId` was not stored, when that is the reason: a
 * target unknown to the sender or in another conversation, an annotation (they do not nest), or
 * erased. Null when the target would do.
 */
export async function targetRefusal(db: Db, me: Reader, conversationId: string, targetId: number): Promise<HttpError | null> {
  const t = await target(db, targetId);
  if (!t || t.conversationId !== conversationId || !(await visibleTo(db, me, t))) return noSuchMessage();
  if (gone(t)) return messageDeleted();
  if (t.targetId !== null) return new HttpError(400, errorCodes.invalidRequest, 'targetId: a reaction or an edit cannot be annotated');
  return null;
}

/**
 * Erases the annotations of messages just erased, in the caller's transaction: a statement of its
 * own, so that it sees an annotation committed while the targets' erase waited for its lock
 * (messages/store.ts). Answers their ids by conversation.
 */
export async function eraseAnnotationsOf(tx: Db, targetIds: number[]): Promise<{ id: number; conversationId: string }[]> {
  if (!targetIds.length) return [];
  return tx
    .update(messages)
    .set({ encryptedContent: null })
    .where(and(inArray(messages.targetId, targetIds), isNotNull(messages.encryptedContent)))
    .returning({ id: messages.id, conversationId: messages.conversationId });
}

/** History leaves out erased annotations: a removed reaction leaves no "message deleted" note. */
export const notErasedAnnotation = sql`NOT (${messages.encryptedContent} IS NULL AND ${messages.targetId} IS NOT NULL)`;

export function oneMessageRoute(app: FastifyInstance, { db }: AppContext): void {
  serve(app, routes.message, async (req) => {
    const me = requireAuth(req).user;
    const t = await target(db, req.params.id);
    if (!t || !(await visibleTo(db, me, t))) throw noSuchMessage();
    if (gone(t) || t.encryptedContent === null) throw messageDeleted();
    const { erased: _erased, createdAt, expiresAt, encryptedContent, ...rest } = t;
    const message: Message = {
      ...rest,
      encryptedContent,
      timestamp: createdAt.toISOString(),
      expiresAt: expiresAt?.toISOString() ?? null,
    };
    return { message, shares: await sharesFor(db, me.id, [t.epochId]) };
  });
}
