/**
 * Attachment rows and their blobs: an upload within the member's quota, the link to its message
 * when the message is stored, deletion with a message, and the sweep of uploads no message took.
 */
import type { Readable } from 'node:stream';
import { errorCodes, errorTexts } from '@enclave/protocol';
import { and, eq, gt, inArray, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { attachments, messages, users } from '../db/schema';
import { HttpError } from '../http/errors';
import { BodyMismatch, type AttachmentStore } from './blobs';

const MiB = 1024 * 1024;

/**
 * Reserves an upload of `size` bytes within the uploader's quota, before a byte of it is read: its
 * row, counted under a lock on the uploader's row, so that two uploads at once cannot both slip
 * under the quota. The blob follows (writeAttachment), or the row goes.
 */
export async function reserveAttachment(
  db: Db,
  upload: { uploaderId: string; conversationId: string; size: number; quotaBytes: number },
): Promise<{ id: string }> {
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
  // The link window and the sweep count from the upload's end: a slow 10 MiB body may take minutes.
  await db
    .update(attachments)
    .set({ createdAt: sql`now()` })
    .where(eq(attachments.id, id));
}

function quotaExceeded(usedBytes: number, quotaBytes: number): HttpError {
  const mb = (n: number) => `${Math.floor(n / MiB)} MB`;
  return new HttpError(
    413,
    errorCodes.quotaExceeded,
    `Attachment storage full: you have ${mb(usedBytes)} stored of your ${mb(quotaBytes)}. This file does not fit.`,
  );
}

/** A too-large upload, refused before its body is read (and by the body limit, should it lie about its length). */
export const attachmentTooLarge = (): HttpError => new HttpError(413, errorCodes.tooLarge, errorTexts.attachmentTooLarge);

/**
 * Links the attachments a new message names to it, inside the send transaction: each must be the
 * sender's own upload, for this conversation, not linked yet, and within the link window (the
 * sweep may be deleting older ones); otherwise the message is not stored either.
 */
export async function linkAttachments(
  tx: Db,
  link: { ids: readonly string[] | undefined; senderId: string; conversationId: string; messageId: number; orphanAfterMs: number },
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
        gt(attachments.createdAt, new Date(Date.now() - linkWindowMs(link.orphanAfterMs))),
      ),
    )
    .returning({ id: attachments.id });
  if (linked.length !== new Set(link.ids).size) {
    throw new HttpError(
      400,
      errorCodes.invalidRequest,
      'attachmentIds: not an attachment you uploaded to this conversation for a new message',
    );
  }
}

/**
 * Deletes the attachments of these messages, blobs then rows: call it whenever messages' content
 * is erased (disappearing messages, delete for everyone), after the erasure committed. A blob the
 * store could not delete (S3 away) keeps its row, which the sweep finds by its erased message and
 * deletes again: no blob outlives its message by more than a sweep once the store answers.
 */
export async function deleteMessageAttachments(db: Db, store: AttachmentStore, messageIds: readonly number[]): Promise<number> {
  if (!messageIds.length) return 0;
  const linked = await db
    .select({ id: attachments.id })
    .from(attachments)
    .where(inArray(attachments.messageId, [...messageIds]));
  return deleteAttachments(
    db,
    store,
    linked.map((r) => r.id),
  );
}

/** Blobs first, then rows: a row stays as long as its blob may still exist. */
async function deleteAttachments(db: Db, store: AttachmentStore, ids: string[]): Promise<number> {
  if (!ids.length) return 0;
  await store.delete(ids);
  const gone = await db.delete(attachments).where(inArray(attachments.id, ids)).returning({ id: attachments.id });
  return gone.length;
}

/** Rows one sweep deletes at most; the next sweep takes the rest. */
const SWEEP_BATCH = 1_000;

/**
 * How long after its upload an attachment may still be linked to a message: half the time after
 * which the sweep deletes unlinked ones, so that an upload whose blob the sweep is deleting can
 * no longer be taken by a message, whatever the clocks of two instances say.
 */
export const linkWindowMs = (orphanAfterMs: number): number => orphanAfterMs / 2;

/**
 * Deletes the uploads no message linked within `orphanAfterMs` (and those whose message row was
 * deleted), and the attachments of erased messages whose blobs could not be deleted before.
 * Several instances may sweep at once: deleting a blob or a row twice is harmless.
 */
export async function sweepOrphans(db: Db, store: AttachmentStore, orphanAfterMs: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - orphanAfterMs);
  const due = await db
    .select({ id: attachments.id })
    .from(attachments)
    .leftJoin(messages, eq(messages.id, attachments.messageId))
    .where(
      or(
        and(isNull(attachments.messageId), lt(attachments.createdAt, cutoff)),
        and(isNotNull(attachments.messageId), isNull(messages.encryptedContent)),
      ),
    )
    .limit(SWEEP_BATCH);
  return deleteAttachments(
    db,
    store,
    due.map((r) => r.id),
  );
}

/** Runs the sweep every `everyMs` until stopped; a failed sweep is logged and tried again next time. */
export function startSweeping(
  db: Db,
  store: AttachmentStore,
  opts: { orphanAfterMs: number; everyMs: number; log: FastifyBaseLogger },
): () => void {
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
      messageErased: sql<boolean>`${messages.id} is not null and ${messages.encryptedContent} is null`,
    })
    .from(attachments)
    .leftJoin(messages, eq(messages.id, attachments.messageId))
    .where(eq(attachments.id, id))
    .limit(1);
  return row;
}
