/**
 * The network's VAPID key pair (RFC 8292): made at the first start, kept in the settings table so
 * that every instance signs with the same one and browsers' subscriptions (bound to its public
 * key) outlive restarts. It signs only "push to this browser" requests; it opens nothing.
 */
import { eq } from 'drizzle-orm';
import webpush from 'web-push';
import type { Db } from '../db/client';
import { settings } from '../db/schema';

const SETTING = 'vapid_keys';

/** Base64url, as browsers and web-push take them. */
export type VapidKeys = { publicKey: string; privateKey: string };

/**
 * The stored pair, or a new one stored first. Race-safe: instances starting at once each try to
 * insert theirs and every one of them keeps whichever landed (one row, one pair).
 */
export async function ensureVapidKeys(db: Db): Promise<VapidKeys> {
  const made = webpush.generateVAPIDKeys();
  await db
    .insert(settings)
    .values({ key: SETTING, value: JSON.stringify(made) })
    .onConflictDoNothing({ target: settings.key });
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, SETTING)).limit(1);
  if (!row) throw new Error('the VAPID keys could not be stored');
  const stored = JSON.parse(row.value) as VapidKeys;
  if (typeof stored.publicKey !== 'string' || typeof stored.privateKey !== 'string') throw new Error('the stored VAPID keys are malformed');
  return stored;
}

/** The VAPID `sub` claim: PUSH_SUBJECT, else the first https public origin, else a placeholder contact. */
export function vapidSubject(config: { pushSubject?: string; publicOrigins?: string[] }): string {
  return config.pushSubject ?? config.publicOrigins?.find((o) => o.startsWith('https://')) ?? 'mailto:push@enclave.invalid';
}
