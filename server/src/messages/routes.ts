/** Messages: history and catch-up, and sending (the server stores and relays ciphertext only). */
import { errorCodes, errorTexts, GENERAL_CONVERSATION, limits, messageEnvelopeSchema, routes, type Message } from '@enclave/protocol';
import { and, asc, desc, eq, gt, gte, lt } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import { assertOwnEpoch } from '../access/rules';
import type { AppContext } from '../context';
import { conversationFor } from '../conversations/membership';
import { membershipChanged, perMember } from '../conversations/routes';
import { pgErrorCode, UNIQUE_VIOLATION } from '../db/client';
import { conversations, epochs, messages, users } from '../db/schema';
import { describeIssues, HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';

const messageColumns = {
  id: messages.id,
  conversationId: messages.conversationId,
  senderId: messages.senderId,
  senderUsername: users.username,
  epochId: messages.epochId,
  index: messages.index,
  encryptedContent: messages.encryptedContent,
  createdAt: messages.createdAt,
};
type MessageRow = { [K in keyof typeof messageColumns]: (typeof messageColumns)[K]['_']['data'] };

const toMessage = ({ createdAt, ...m }: MessageRow): Message => ({ ...m, timestamp: createdAt.toISOString() });

export async function messageRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;

  serve(app, routes.history, async (req) => {
    const auth = requireAuth(req);
    const q = req.query;
    // Reading: the history with a member banned or wiped since stays readable (access/rules.ts).
    const conversationId = await conversationFor(db, auth.user.id, q.receiverId, 'read');
    const conds = [eq(messages.conversationId, conversationId)];
    // The channel's earlier messages were never wrapped for a newcomer: do not ship them at all.
    if (conversationId === GENERAL_CONVERSATION) conds.push(gte(messages.createdAt, auth.user.createdAt));
    if (q.before) conds.push(lt(messages.id, q.before));
    if (q.after) conds.push(gt(messages.id, q.after));
    const rows = await db
      .select(messageColumns)
      .from(messages)
      .innerJoin(users, eq(users.id, messages.senderId))
      .where(and(...conds))
      .orderBy(q.after ? asc(messages.id) : desc(messages.id))
      .limit(q.limit + 1);
    const hasMore = rows.length > q.limit;
    const page = rows.slice(0, q.limit);
    if (!q.after) page.reverse();
    return { messages: page.map(toMessage), hasMore };
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
        if (typeof ct === 'string' && Buffer.from(ct, 'base64').length > limits.ciphertextMaxBytes) {
          throw new HttpError(400, errorCodes.invalidRequest, errorTexts.messageTooLong);
        }
        throw new HttpError(400, errorCodes.invalidRequest, `encryptedContent: ${describeIssues(envelope.error)}`);
      }
      const conversationId = await conversationFor(db, me, body.receiverId, 'write');
      const row = await db.transaction(async (tx) => {
        const [epoch] = await tx.select().from(epochs).where(eq(epochs.id, body.epochId)).limit(1);
        assertOwnEpoch(me, conversationId, epoch);
        const [conv] = await tx.select().from(conversations).where(eq(conversations.id, conversationId)).for('share');
        if ((conv?.membershipVersion ?? 0) !== epoch.membershipVersion) throw membershipChanged();
        try {
          const [inserted] = await tx
            .insert(messages)
            .values({ conversationId, senderId: me, epochId: body.epochId, index: body.index, encryptedContent: body.encryptedContent })
            .returning();
          return inserted;
        } catch (err) {
          if (pgErrorCode(err) === UNIQUE_VIOLATION) {
            throw new HttpError(409, errorCodes.replay, 'This message index was already used in this epoch');
          }
          throw err;
        }
      });
      if (!row) throw new Error('insert returned no row');
      const message = toMessage({ ...row, senderUsername: auth.user.username });
      await db.update(users).set({ lastActivity: row.createdAt }).where(eq(users.id, me));
      const to = conversationId === GENERAL_CONVERSATION ? 'all' : [me, body.receiverId];
      await ctx.gateway.publish({ kind: 'deliver', to, frame: { type: 'chat_message', message } });
      return { message };
    },
    { rateLimit: rateLimit(ctx.config.rateLimits.send, perMember) },
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, errorCodes.invalidRequest, 'encryptedContent is not a message envelope');
  }
}
