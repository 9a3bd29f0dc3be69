/**
 * Emergency shutdown (docs/spec.md §4: bans everyone except the creator; docs/security.md §10):
 * every member not marked as the creator's own is banned, their sessions revoked and sockets closed
 * with a notice, and the network enters emergency mode until the creator lifts it. Bans stay until
 * lifted.
 */
import type { EmergencyState } from '@enclave/protocol';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import { users } from '../db/schema';
import { eventTypes, recordEvent, type EventSource } from '../security/events';
import { announceBans, applyBans, type BanTiming } from '../users/moderation';
import { emergencyState, enterEmergency, liftEmergency } from './emergency-state';

const SHUTDOWN_REASON = 'Emergency shutdown';

/**
 * Enters emergency mode and bans every member in one transaction, so that it all happens or none
 * of it does, whatever the number of members; then closes their sockets.
 */
export async function emergencyShutdown(ctx: AppContext): Promise<{ banned: number; emergency: EmergencyState; timing: BanTiming }> {
  const since = new Date().toISOString();
  const { ids, moved } = await ctx.db.transaction(async (tx) => {
    await enterEmergency(tx, since);
    const targets = await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.isCreatorAccount, false), eq(users.isBanned, false)));
    const ids = targets.map((t) => t.id);
    const moved = ids.length ? await applyBans(tx, ids, { banned: true, reason: SHUTDOWN_REASON, by: 'creator' }) : [];
    return { ids, moved };
  });
  const timing = ids.length ? await announceBans(ctx, ids, { banned: true, reason: SHUTDOWN_REASON }, moved) : { socketsClosed: 0 };
  return { banned: ids.length, emergency: await emergencyState(ctx.db), timing };
}

/**
 * Who declares or lifts an emergency, for its audit row: 'creator' from the console (with its
 * request), 'operator' from the operator socket (no request).
 */
export type EmergencyActor = { actor: string; req: EventSource | null };

/** The shutdown and its audit row: what the console's route and the operator socket do. */
export async function declareEmergency(ctx: AppContext, by: EmergencyActor): Promise<{ banned: number; emergency: EmergencyState }> {
  const { timing, ...result } = await emergencyShutdown(ctx);
  await recordEvent(ctx.db, by.req, {
    type: eventTypes.emergencyShutdown,
    severity: 'critical',
    actor: by.actor,
    details: { banned: result.banned, ...timing },
  });
  return result;
}

/** Lifts emergency mode (bans stay) and audits it. */
export async function endEmergency(ctx: AppContext, by: EmergencyActor): Promise<EmergencyState> {
  const emergency = await liftEmergency(ctx.db);
  await recordEvent(ctx.db, by.req, { type: eventTypes.emergencyLifted, severity: 'high', actor: by.actor });
  return emergency;
}
