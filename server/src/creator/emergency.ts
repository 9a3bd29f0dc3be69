/**
 * Emergency shutdown (docs/spec.md §4: bans everyone except the creator; docs/security.md §10):
 * every member not marked as the creator's own is banned, their sessions revoked and sockets closed
 * with a notice, and the network enters emergency mode until the creator lifts it. Bans stay until
 * lifted.
 */
import type { EmergencyState } from '@enclave/protocol';
import { and, eq } from 'drizzle-orm';
import type { AppContext } from '../context';
import type { Db } from '../db/client';
import { settings, users } from '../db/schema';
import { setBanned } from '../users/moderation';
import { getSetting } from './master-key';

const EMERGENCY = 'emergency_since';
const SHUTDOWN_REASON = 'Emergency shutdown';

export async function emergencyState(db: Db): Promise<EmergencyState> {
  const since = await getSetting(db, EMERGENCY);
  return { active: since !== undefined, since: since ?? null };
}

export async function emergencyShutdown(ctx: AppContext): Promise<{ banned: number; emergency: EmergencyState }> {
  const since = new Date().toISOString();
  // Enter emergency mode first: no registration slips in while members are being banned.
  await ctx.db.insert(settings).values({ key: EMERGENCY, value: since }).onConflictDoNothing();
  const targets = await ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.isCreatorAccount, false), eq(users.isBanned, false)));
  await setBanned(ctx, { kind: 'creator' }, targets.map((t) => t.id), { banned: true, reason: SHUTDOWN_REASON });
  return { banned: targets.length, emergency: await emergencyState(ctx.db) };
}

export async function liftEmergency(db: Db): Promise<EmergencyState> {
  await db.delete(settings).where(eq(settings.key, EMERGENCY));
  return emergencyState(db);
}
