/**
 * The breach policy (config BREACH_POLICY, docs/security.md §10): what a signed-in member's own
 * breach report does to their own account. Never to anyone else's: the reporter is the request's
 * session, and nothing in a report names an account.
 *
 * - log: the report is an event, nothing more;
 * - lock: the account cannot sign in until the creator unlocks it; its sessions end now;
 * - wipe: in one transaction the sealed key bundle and every share wrapped for the member are
 *   deleted, the account marked compromised and its conversations moved to a new member set (as a
 *   ban does, so no later epoch is wrapped for it); then its sockets get `security_breach` and close.
 */
import { errorTexts, type BreachPolicy } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import { epochShares, users } from '../db/schema';
import { announceMoves, moveConversationsOf, revokeSessionsOf } from '../users/moderation';

/** What a wiped member's `encrypted_private_key` holds: no bundle (a real one is base64 of at least 44 bytes). */
export const WIPED_BUNDLE = '';

/** docs/spec.md §8: the socket's breach alert. */
export const BREACH_MESSAGE = 'SECURITY BREACH: Your account has been compromised. All data wiped for protection.';

export type BreachAction = 'logged' | 'locked' | 'wiped';

export async function applyBreachPolicy(ctx: AppContext, userId: string, policy: BreachPolicy): Promise<BreachAction> {
  if (policy === 'log') return 'logged';
  if (policy === 'lock') {
    await ctx.db.transaction(async (tx) => {
      await tx.update(users).set({ isLocked: true }).where(eq(users.id, userId));
      await revokeSessionsOf(tx, [userId]);
    });
    await ctx.gateway.publishCommitted({
      kind: 'end_sessions',
      userIds: [userId],
      frame: { type: 'session_ended', reason: 'locked', message: errorTexts.locked },
    });
    return 'locked';
  }
  const moved = await ctx.db.transaction(async (tx) => {
    await tx.update(users).set({ encryptedPrivateKey: WIPED_BUNDLE, isCompromised: true }).where(eq(users.id, userId));
    await tx.delete(epochShares).where(eq(epochShares.recipientId, userId));
    await revokeSessionsOf(tx, [userId]);
    return moveConversationsOf(tx, [userId]);
  });
  await ctx.gateway.publishCommitted({ kind: 'end_sessions', userIds: [userId], frame: { type: 'security_breach', message: BREACH_MESSAGE } });
  await announceMoves(ctx, moved);
  return 'wiped';
}
