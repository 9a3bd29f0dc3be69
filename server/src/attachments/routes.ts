/**
 * Upload and download of attachment ciphertext (docs/security.md §14). The server checks who may
 * write and read which conversation, sizes, quotas and rates; it never sees a key or a byte of
 * plaintext.
 */
import { Readable } from 'node:stream';
import { errorCodes, limits, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { mayReadAttachment } from '../access/rules';
import type { AppContext } from '../context';
import { conversationFor, readWindowOf } from '../conversations/membership';
import { HttpError } from '../http/errors';
import { inPlace } from '../http/overload';
import { rateLimit, serve } from '../http/routes';
import { perMember } from '../conversations/routes';
import { attachmentForAccess, attachmentTooLarge, reserveAttachment, writeAttachment } from './service';

/** AES-GCM output is never shorter than its tag (an empty file). */
const TAG_BYTES = 16;

const wrongType = () => new HttpError(415, errorCodes.invalidRequest, 'Content-Type must be application/octet-stream');

const notFound = () => new HttpError(404, errorCodes.notFound, 'No such attachment');

export async function attachmentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config } = ctx;
  const maxBytes = limits.attachmentCiphertextMaxBytes;
  // Only in this plugin's routes: everywhere else a body is JSON. The body is handed over unread:
  // the handler streams it to the store once its declared length is allowed (service.ts).
  app.addContentTypeParser('application/octet-stream', (_req, body, done) => done(null, body));
  // A refusal before the body was read closes the connection, rather than Node reading the rest
  // of an upload it refused only to keep the connection alive.
  app.addHook('onSend', async (req, reply) => {
    if (!req.raw.complete) reply.header('connection', 'close');
  });

  serve(
    app,
    routes.uploadAttachment,
    async (req, reply) => {
      const auth = requireAuth(req);
      const body = req.body;
      if (!(body instanceof Readable)) throw wrongType();
      const size = Number(req.headers['content-length']);
      // Checked before a byte is read, in a place of the overload gate held for these queries
      // only, never while the body streams in (http/overload.ts).
      const { id } = await inPlace(ctx.gate, req, async () => {
        const conversationId = await conversationFor(db, auth.user.id, req.query.receiverId, 'write');
        return reserveAttachment(db, { uploaderId: auth.user.id, conversationId, size, quotaBytes: config.attachments.quotaBytes });
      });
      try {
        await writeAttachment(db, ctx.attachments, id, body, size);
      } catch (err) {
        // Already answered (408 by the body deadline: http/slow-requests.ts): nothing more to say.
        if (reply.sent) return reply as never;
        throw err;
      }
      return { id, size };
    },
    {
      rateLimit: rateLimit(config.rateLimits.attachmentUpload, perMember),
      // Refused on its declared type and length before a byte is read, with the text members see.
      // Any other type would be read whole by its parser before the handler could refuse it.
      preParsing: async (req) => {
        if (req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() !== 'application/octet-stream') throw wrongType();
        const declared = req.headers['content-length'];
        if (declared === undefined) throw new HttpError(411, errorCodes.invalidRequest, 'An upload must declare its Content-Length');
        const size = Number(declared);
        if (size > maxBytes) throw attachmentTooLarge();
        if (size < TAG_BYTES)
          throw new HttpError(400, errorCodes.invalidRequest, 'An attachment is its ciphertext: at least the 16-byte tag');
      },
    },
  );

  serve(
    app,
    routes.downloadAttachment,
    async (req, reply) => {
      const auth = requireAuth(req);
      const attachment = await attachmentForAccess(db, req.params.id);
      const window = attachment ? await readWindowOf(db, auth.user, attachment.conversationId) : null;
      if (!mayReadAttachment(auth.user.id, window, attachment)) throw notFound();
      const bytes = await ctx.attachments.get(req.params.id);
      if (!bytes) throw notFound();
      // Ciphertext only this member may fetch: their browser may keep it, no shared cache.
      reply.header('cache-control', 'private, max-age=86400');
      // Never rendered if opened directly: the browser saves it.
      reply.header('content-disposition', 'attachment');
      return bytes;
    },
    { rateLimit: rateLimit(config.rateLimits.attachmentDownload, perMember) },
  );
}
