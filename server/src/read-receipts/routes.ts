/**
 * Read receipts, in direct messages and small groups: the member's opt-in, their read position,
 * and the other members', shown only while both sides opted in (service.ts). The general channel
 * has none: its routes take a member or group id, so `all` is refused as malformed input.
 */
import { errorCodes, isGroupConversation, routes } from '@enclave/protocol';
import type { FastifyInstance } from 'fastify';
import { requireAuth } from '../access/policy';
import type { AppContext } from '../context';
import { conversationFor, groupMemberIds } from '../conversations/membership';
import { perMember } from '../conversations/routes';
import { HttpError } from '../http/errors';
import { rateLimit, serve } from '../http/routes';
import { readPosition } from '../realtime/publish';
import { isReadableMessage, peerPositions, receiptPeers, setReadReceipts, storePosition, whoSendReceipts } from './service';

export async function readReceiptRoutes(app: FastifyInstance, { ctx }: { ctx: AppContext }): Promise<void> {
  const { db } = ctx;
  const limit = { rateLimit: rateLimit(ctx.config.rateLimits.readPosition, perMember) };
  const peersOf = async (conversationId: string, me: string, receiverId: string) =>
    receiptPeers(conversationId, me, receiverId, isGroupConversation(conversationId) ? await groupMemberIds(db, conversationId) : []);

  serve(
    app,
    routes.setReadReceipts,
    async (req) => {
      const me = requireAuth(req).user.id;
      await setReadReceipts(db, me, req.body.enabled);
      return { enabled: req.body.enabled };
    },
    limit,
  );

  serve(
    app,
    routes.markRead,
    async (req) => {
      const me = requireAuth(req).user.id;
      const { receiverId, messageId } = req.body;
      // Reading: a DM with a member banned since is still the caller's to read (access/rules.ts).
      const conversationId = await conversationFor(db, me, receiverId, 'read');
      if (!(await isReadableMessage(db, conversationId, messageId))) {
        throw new HttpError(404, errorCodes.notFound, 'No such message in this conversation');
      }
      const peers = await peersOf(conversationId, me, receiverId);
      if (!peers) return { stored: false };
      const stored = await storePosition(db, conversationId, me, messageId);
      // Only to members who send read receipts too: one who does not sees none.
      const to = stored ? await whoSendReceipts(db, peers) : [];
      if (to.length) await readPosition(ctx.gateway, to, conversationId, me, messageId);
      return { stored };
    },
    limit,
  );

  serve(app, routes.readPosition, async (req) => {
    const me = requireAuth(req).user.id;
    const conversationId = await conversationFor(db, me, req.query.receiverId, 'read');
    const peers = await peersOf(conversationId, me, req.query.receiverId);
    return { positions: peers ? await peerPositions(db, conversationId, me, peers) : [] };
  });
}
