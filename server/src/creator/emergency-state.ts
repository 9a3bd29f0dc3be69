/**
 * Whether the network is in emergency mode, and the lock that orders a shutdown against
 * registrations: what registration, keys, P2P and the security metrics read. The shutdown itself,
 * which bans and closes sockets, is emergency.ts; this module imports none of that.
 */
import type { EmergencyState } from '@enclave/protocol';
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { settings } from '../db/schema';
import { getSetting } from './master-key';

const EMERGENCY = 'emergency_since';

/**
 * A transaction-level lock that a shutdown takes exclusively and a registration shared: a
 * registration either commits before the shutdown looks for members to ban, or reads the
 * emergency flag after the shutdown committed it. (A row lock on the flag cannot do this: the row
 * does not exist until the shutdown writes it.)
 */
const EMERGENCY_LOCK = sql`hashtext('enclave.emergency')`;

export async function emergencyState(db: Db): Promise<EmergencyState> {
  const since = await getSetting(db, EMERGENCY);
  return { active: since !== undefined, since: since ?? null };
}

/**
 * Inside a registration's transaction, before anything is written: whether the network takes new
 * members. Waits for a shutdown in progress.
 */
export async function registrationOpen(tx: Db): Promise<boolean> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock_shared(${EMERGENCY_LOCK})`);
  return !(await emergencyState(tx)).active;
}

/**
 * Inside a shutdown's transaction, first: waits for registrations in progress, then sets the flag
 * (kept as it was when already set), so that none registers until the shutdown commits or after.
 */
export async function enterEmergency(tx: Db, since: string): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${EMERGENCY_LOCK})`);
  await tx.insert(settings).values({ key: EMERGENCY, value: since }).onConflictDoNothing();
}

export async function liftEmergency(db: Db): Promise<EmergencyState> {
  await db.delete(settings).where(eq(settings.key, EMERGENCY));
  return emergencyState(db);
}
