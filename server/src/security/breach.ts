/**
 * The breach policy (config BREACH_POLICY, docs/security.md §10): what a signed-in member's own
 * breach report does to their own account. Never to anyone else's: the reporter is the request's
 * session, and nothing in a report names an account.
 *
 * - log: the report is an event, nothing more;
 * - lock: the account cannot sign in until the creator unlocks it; its sessions end now;
 * - wipe: the sealed key bundle and every share wrapped for the member are deleted, the account
 *   marked compromised and its conversations moved to a new member set (as a ban does, so no later
 *   epoch is wrapped for it); then its sockets get `security_breach` and close. Nothing on the
 *   server can bring the keys back: a wiped account cannot be unlocked (security/routes.ts).
 *
 * A lock or wipe, the removal of the member's P2P node and connections, and the report's audit
 * row are one transaction: all of them happen, or none.
 */
import { errorTexts, type BreachPolicy } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Db } from '../db/client';
import { channelShares, epochShares, users } from '../db/schema';
import { removeP2pOf, type P2pConnection } from '../p2p/registry';
import { announceConnection } from '../p2p/signaling';
import { announceMoves, moveConversationsOf, revokeSessionsOf, type MovedConversation } from '../users/moderation';
import { securityBreach, sessionEnded } from '../realtime/publish';

/** What a wiped member's `encrypted_private_key` holds: no bundle (a real one is base64 of at least 44 bytes). */
export const WIPED_BUNDLE = '';

/** docs/spec.md §8: the socket's breach alert. */
export const BREACH_MESSAGE = 'SECURITY BREACH: Your account has been compromised. All data wiped for protection.';

/** The creator's unlock of a wiped member (security/routes.ts), a 409. */
export const WIPED_CANNOT_UNLOCK =
  'This account was wiped by the breach policy; its keys are gone and it cannot be restored. The member can join again with a new invite key.';

export type BreachAction = 'logged' | 'locked' | 'wiped';

/** Writes the report's event with the action taken, in the transaction of that action when there is one. */
export type BreachAudit = (tx: Db, action: BreachAction) => Promise<void>;

/** `userId`: the reporter's, or null for an anonymous report (logged only, whatever the policy). */
export async function applyBreachPolicy(
  ctx: AppContext,
  userId: string | null,
  policy: BreachPolicy,
  audit: BreachAudit,
): Promise<BreachAction> {
  if (policy === 'log' || userId === null) {
    await audit(ctx.db, 'logged');
    return 'logged';
  }
  const action = policy === 'lock' ? 'locked' : 'wiped';
  const done = await ctx.db.transaction(async (tx): Promise<{ moved: MovedConversation[]; ended: P2pConnection[] }> => {
    let moved: MovedConversation[] = [];
    if (action === 'locked') {
      await tx.update(users).set({ isLocked: true }).where(eq(users.id, userId));
    } else {
      await tx.update(users).set({ encryptedPrivateKey: WIPED_BUNDLE, isCompromised: true }).where(eq(users.id, userId));
      await tx.delete(epochShares).where(eq(epochShares.recipientId, userId));
      await tx.delete(channelShares).where(eq(channelShares.recipientId, userId));
    }
    await revokeSessionsOf(tx, [userId]);
    if (action === 'wiped') moved = await moveConversationsOf(tx, [userId]);
    // As a ban: a member who cannot sign in hosts nothing and joins nothing.
    const ended = await removeP2pOf(tx, [userId], { joined: true });
    await audit(tx, action);
    return { moved, ended };
  });
  await (action === 'locked'
    ? sessionEnded(ctx.gateway, { userIds: [userId] }, 'locked', errorTexts.locked)
    : securityBreach(ctx.gateway, { userIds: [userId] }, BREACH_MESSAGE));
  for (const c of done.ended) await announceConnection(ctx, c, 'closed');
  if (action === 'wiped') {
    // The sealed bundle and the shares must leave the database's files too, not only its rows.
    ctx.scrubber.erased('users', 'epoch_shares', 'channel_shares');
    await announceMoves(ctx, [userId], done.moved);
  }
  return action;
}
