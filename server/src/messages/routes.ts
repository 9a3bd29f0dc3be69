import {
  conversationIdFor,
  conversationMembersQuerySchema,
  createEpochRequestSchema,
  errorCodes,
  errorTexts,
  GENERAL_CONVERSATION,
  historyQuerySchema,
  limits,
  messageEnvelopeSchema,
  sendMessageRequestSchema,
  sharesQuerySchema,
  type EpochShare,
  type Message,
} from '@enclave/protocol';
import { and, asc, desc, eq, gt, gte, inArray, lt } from 'drizzle-orm';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context';
import { pgErrorCode, UNIQUE_VIOLATION, type Db } from '../db/client';
import { conversations, epochs, epochShares, messages, users } from '../db/schema';
import { requireAuth } from '../access/policy';
import { describeIssues, HttpError, parse } from '../http/errors';
import { conversationMembers, membershipVersion } from './membership';

const membershipChanged = () =>
  new HttpError(409, errorCodes.membershipChanged, 'The members of this conversation changed: fetch them and rotate');

/** The conversation a member talks in with `receiverId`, refusing unknown, banned or self peers. */
async function resolveConversation(db: Db, me: string, receiverId: string): Promise<string> {
  if (receiverId === 'all') return GENERAL_CONVERSATION;
  if (receiverId === me) throw new HttpError(400, errorCodes.invalidRequest, 'You cannot message yourself');
  const [peer] = await db
    .select({ isBanned: users.isBanned, isCompromised: users.isCompromised })
    .from(users)
    .where(eq(users.id, receiverId))
    .limit(1);
  if (!peer) throw new HttpError(404, errorCodes.notFound, 'No such member');
  if (peer.isBanned || peer.isCompromised) throw new HttpError(403, errorCodes.forbidden, 'This member is banned');
  return conversationIdFor(me, receiverId);
}

/** A member's own shares of the given epochs (all of them without `epochIds`). */
export function sharesFor(db: Db, recipientId: string, epochIds?: string[]): Promise<EpochShare[]> {
  const mine = eq(epochShares.recipientId, recipientId);
  return db
    .select({
      epochId: epochs.id,
      conversationId: epochs.conversationId,
      senderId: epochs.senderId,
      membershipVersion: epochs.membershipVersion,
      wrappedKey: epochShares.wrappedKey,
      signature: epochShares.signature,
    })
    .from(epochShares)
    .innerJoin(epochs, eq(epochs.id, epochShares.epochId))
    .where(epochIds ? and(mine, inArray(epochShares.epochId, epochIds)) : mine);
}

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

  app.get('/api/conversations/members', async (req) => {
    const me = requireAuth(req).user.id;
    const { receiverId } = parse(conversationMembersQuerySchema, req.query);
    const conversationId = await resolveConversation(db, me, receiverId);
    const [version, members] = await Promise.all([
      membershipVersion(db, conversationId),
      conversationMembers(db, conversationId),
    ]);
    return { conversationId, membershipVersion: version, members };
  });

  const perMember = (l: { max: number; windowMs: number }) => ({
    rateLimit: { max: l.max, timeWindow: l.windowMs, keyGenerator: (req: FastifyRequest) => req.auth?.user.id ?? req.ip },
  });

  // Shares can be many (one per member of the channel, ~530 bytes each): this route alone takes
  // large bodies.
  app.post('/api/epochs', { bodyLimit: limits.epochMaxRecipients * 640, config: perMember(ctx.config.rateLimits.epoch) }, async (req, reply) => {
    const me = requireAuth(req).user.id;
    const body = parse(createEpochRequestSchema, req.body);
    const conversationId = await resolveConversation(db, me, body.receiverId);
    await db.transaction(async (tx) => {
      // Hold the member set still while we check the shares cover exactly it.
      await tx.insert(conversations).values({ id: conversationId }).onConflictDoNothing();
      const [conv] = await tx.select().from(conversations).where(eq(conversations.id, conversationId)).for('share');
      if (conv?.membershipVersion !== body.membershipVersion) throw membershipChanged();
      const members = await conversationMembers(tx, conversationId);
      const expected = new Set(members.map((m) => m.id));
      const given = new Set(body.shares.map((s) => s.recipientId));
      if (given.size !== body.shares.length || given.size !== expected.size || [...given].some((id) => !expected.has(id))) {
        throw membershipChanged();
      }
      try {
        await tx.insert(epochs).values({ id: body.epochId, conversationId, senderId: me, membershipVersion: body.membershipVersion });
      } catch (err) {
        if (pgErrorCode(err) === UNIQUE_VIOLATION) throw new HttpError(409, errorCodes.replay, 'This epoch already exists');
        throw err;
      }
      await tx.insert(epochShares).values(body.shares.map((s) => ({ epochId: body.epochId, ...s })));
    });
    return reply.status(201).send({ ok: true });
  });

  app.get('/api/epochs/shares', async (req) => {
    const me = requireAuth(req).user.id;
    const { ids } = parse(sharesQuerySchema, req.query);
    return { shares: await sharesFor(db, me, ids) };
  });

  app.get('/api/messages/recent', async (req) => {
    const auth = requireAuth(req);
    const q = parse(historyQuerySchema, req.query);
    const conversationId = await resolveConversation(db, auth.user.id, q.receiverId);
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

  app.post(
    '/api/messages/send',
    { config: perMember(ctx.config.rateLimits.send) },
    async (req, reply) => {
      const auth = requireAuth(req);
      const me = auth.user.id;
      const body = parse(sendMessageRequestSchema, req.body);
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
      const conversationId = await resolveConversation(db, me, body.receiverId);
      const row = await db.transaction(async (tx) => {
        const [epoch] = await tx.select().from(epochs).where(eq(epochs.id, body.epochId)).limit(1);
        if (!epoch || epoch.senderId !== me || epoch.conversationId !== conversationId) {
          throw new HttpError(400, errorCodes.invalidRequest, 'Unknown epoch for this conversation');
        }
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
      return reply.status(201).send({ message });
    },
  );
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError(400, errorCodes.invalidRequest, 'encryptedContent is not a message envelope');
  }
}
