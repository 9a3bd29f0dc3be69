/**
 * Attachment rows and their blobs: an upload within the member's quota, the link to its message
 * when the message is stored, deletion with a message, and the sweep of uploads no message took.
 */
import type { Readable } from 'node:stream';
import { errorCodes, errorTexts } from '@enclave/protocol';
import { and, eq, inArray, isNull, lt, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { attachments, messages, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { BodyMismatch, type AttachmentStore } from './store';

const MiB = 1024 * 1024;

/**
 * Reserves an upload of `size` bytes within the uploader's quota, before a byte of it is read: its
 * row, counted under a lock on the uploader's row, so that two uploads at once cannot both slip
 * under the quota. The blob follows (writeAttachment), or the row goes.
 */
export async function reserveAttachment(db: Db, upload: { uploaderId: string; conversationId: string; size: number; quotaBytes: number }): Promise<{ id: string }> {
  return db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, upload.uploaderId)).for('no key update');
    const [used] = await tx
      .select({ bytes: sql<string>`coalesce(sum(${attachments.size}), 0)` })
      .from(attachments)
      .where(eq(attachments.uploaderId, upload.uploaderId));
    const usedBytes = Number(used?.bytes ?? 0);
    if (usedBytes + upload.size > upload.quotaBytes) throw quotaExceeded(usedBytes, upload.quotaBytes);
    const [inserted] = await tx
      .insert(attachments)
      .values({ uploaderId: upload.uploaderId, conversationId: upload.conversationId, size: upload.size })
      .returning({ id: attachments.id });
    if (!inserted) throw new Error('attachment insert returned no row');
    return inserted;
  });
}

/**
 * Streams a reserved upload's body to the store. A body that is not the reserved size (the client
 * lied about its length, or hung up) is a 400, and like any failure takes its row with it: the
 * store keeps nothing of it either.
 */
export async function writeAttachment(db: Db, store: AttachmentStore, id: string, body: Readable, size: number): Promise<void> {
  try {
    await store.put(id, body, size);
  } catch (err) {
    await db.delete(attachments).where(eq(attachments.id, id));
    if (err instanceof BodyMismatch || body.errored || body.readableAborted) {
      throw new HttpError(400, errorCodes.invalidRequest, 'The upload did not match its Content-Length');
    }
    throw err;
  }
}

function quotaExceeded(usedBytes: number, quotaBytes: number): HttpError {
  const mb = (n: number) => `${Math.floor(n / MiB)} MB`;
  return new HttpError(413, errorCodes.quotaExceeded, `Attachment storage full: you have ${mb(usedBytes)} stored of your ${mb(quotaBytes)}. This file does not fit.`);
}

/** A too-large upload, refused before its body is read (and by the body limit, should it lie about its length). */
export const attachmentTooLarge = (): HttpError => new HttpError(413, errorCodes.tooLarge, errorTexts.attachmentTooLarge);

/**
 * Links the attachments a new message names to it, inside the send transaction: each must be the
 * sender's own upload, for this conversation, and not linked yet; otherwise the message is not
 * stored either.
 */
export async function linkAttachments(
  tx: Db,
  link: { ids: readonly string[] | undefined; senderId: string; conversationId: string; messageId: number },
): Promise<void> {
  if (!link.ids?.length) return;
  const linked = await tx
    .update(attachments)
    .set({ messageId: link.messageId })
    .where(
      and(
        inArray(attachments.id, [...link.ids]),
        eq(attachments.uploaderId, link.senderId),
        eq(attachments.conversationId, link.conversationId),
        isNull(attachments.messageId),
      ),
    )
    .returning({ id: attachments.id });
  if (linked.length !== new Set(link.ids).size) {
    throw new HttpError(400, errorCodes.invalidRequest, 'attachmentIds: not an attachment you uploaded to this conversation for a new message');
  }
}

/**
 * Deletes the attachments of these messages, rows and blobs: call it whenever messages' content
 * is deleted (disappearing messages, delete for everyone), outside a transaction that may still
 * roll back, since a deleted blob does not come back. A message row deleted without it leaves
 * its attachments unlinked (the foreign key sets null), and the next sweep deletes them.
 */
export async function deleteMessageAttachments(db: Db, store: AttachmentStore, messageIds: readonly number[]): Promise<number> {
  if (!messageIds.length) return 0;
  const gone = await db.delete(attachments).where(inArray(attachments.messageId, [...messageIds])).returning({ id: attachments.id });
  await store.delete(gone.map((r) => r.id));
  return gone.length;
}

/**
 * Deletes uploads that no message linked within `orphanAfterMs` (and those whose message was
 * deleted). Several instances may sweep at once: each row is deleted, and its blob, by one.
 */
export async function sweepOrphans(db: Db, store: AttachmentStore, orphanAfterMs: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - orphanAfterMs);
  const gone = await db
    .delete(attachments)
    .where(and(isNull(attachments.messageId), lt(attachments.createdAt, cutoff)))
    .returning({ id: attachments.id });
  await store.delete(gone.map((r) => r.id));
  return gone.length;
}

/** Runs the sweep every `everyMs` until stopped; a failed sweep is logged and tried again next time. */
export function startSweeping(db: Db, store: AttachmentStore, opts: { orphanAfterMs: number; everyMs: number; log: FastifyBaseLogger }): () => void {
  const timer = setInterval(() => {
    sweepOrphans(db, store, opts.orphanAfterMs).then(
      (n) => n && opts.log.info({ attachments: n }, 'swept unlinked attachments'),
      (err: unknown) => opts.log.warn({ err }, 'could not sweep unlinked attachments'),
    );
  }, opts.everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** What the read rule needs of an attachment (access/rules.ts), or undefined when there is no such id. */
export async function attachmentForAccess(db: Db, id: string) {
  const [row] = await db
    .select({
      uploaderId: attachments.uploaderId,
      conversationId: attachments.conversationId,
      messageCreatedAt: messages.createdAt,
    })
    .from(attachments)
    .leftJoin(messages, eq(messages.id, attachments.messageId))
    .where(eq(attachments.id, id))
    .limit(1);
  return row;
}
