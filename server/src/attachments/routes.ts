/**
 * Upload and download of attachment ciphertext (docs/security.md §14). The server checks who may
 * write and read which conversation, sizes, quotas and rates; it never sees a key or a byte of
 * plaintext.
 */
import { errorCodes, limits, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { mayReadAttachment } from '../access/rules';
import type { AppContext } from '../context';
import { conversationFor } from '../conversations/membership';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { perMember } from '../conversations/routes';
import { attachmentForAccess, attachmentTooLarge, storeAttachment } from './service';

/** AES-GCM output is never shorter than its tag (an empty file). */
const TAG_BYTES = 16;

const notFound = () => new HttpError(404, errorCodes.notFound, 'No such attachment');

export async function attachmentRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db, config } = ctx;
  const maxBytes = limits.attachmentCiphertextMaxBytes;
  // Only in this plugin's routes: everywhere else a body is JSON.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxBytes }, (_req, body, done) => done(null, body));

  serve(
    app,
    routes.uploadAttachment,
    async (req) => {
      const auth = requireAuth(req);
      const bytes = req.body;
      if (!Buffer.isBuffer(bytes)) throw new HttpError(415, errorCodes.invalidRequest, 'Content-Type must be application/octet-stream');
      if (bytes.length < TAG_BYTES) throw new HttpError(400, errorCodes.invalidRequest, 'An attachment is its ciphertext: at least the 16-byte tag');
      const conversationId = await conversationFor(db, auth.user.id, req.query.receiverId, 'write');
      return storeAttachment(db, ctx.attachments, { uploaderId: auth.user.id, conversationId, bytes, quotaBytes: config.attachments.quotaBytes });
    },
    {
      rateLimit: rateLimit(config.rateLimits.attachmentUpload, perMember),
      // Refused on its declared length before a byte is read, with the text members see.
      preParsing: async (req) => {
        if (Number(req.headers['content-length'] ?? 0) > maxBytes) throw attachmentTooLarge();
      },
    },
  );

  serve(
    app,
    routes.downloadAttachment,
    async (req, reply) => {
      const auth = requireAuth(req);
      const attachment = await attachmentForAccess(db, req.params.id);
      if (!mayReadAttachment(auth.user, attachment)) throw notFound();
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
