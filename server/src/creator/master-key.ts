/**
 * The network creator's master key (docs/security.md §8): 128 lowercase hex. Configured by
 * MASTER_KEY, or generated at the first start, printed once and written to a file only the owner
 * can read. The database keeps only its SHA-256. During a rotation MASTER_KEY_PREVIOUS is accepted
 * beside it (docs/operations.md §6, "Rotating the master key"): {@link whichMasterKey} is the rule.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { settings } from '../db/schema';
import { sha256Hex } from '../auth/sessions';

export const MASTER_KEY_PATTERN = /^[0-9a-f]{128}$/;
const HASH = 'master_key_hash';
const PREVIOUS_HASH = 'master_key_previous_hash';
const SOURCE = 'master_key_source';

/** The SHA-256 of the keys an instance accepts: the current one, and the previous one during a rotation. */
export type MasterKeyHashes = { hash: string; previousHash?: string };

export type MasterKeyState = MasterKeyHashes & {
  source: 'configured' | 'generated';
  /** Only on the start that generated it: the key to show the operator once. */
  generated?: { key: string; file: string };
};

async function setSetting(db: Db, key: string, value: string): Promise<void> {
  await db.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
}

export async function getSetting(db: Db, key: string): Promise<string | undefined> {
  const [row] = await db.select().from(settings).where(eq(settings.key, key)).limit(1);
  return row?.value;
}

/**
 * This start's keys. Configured: MASTER_KEY (and MASTER_KEY_PREVIOUS, during a rotation) are
 * stored as hashes, replacing earlier ones, so that an instance started without MASTER_KEY (the
 * generated-key path, which reads the stored hashes) accepts the same keys as the last one started.
 */
export async function ensureMasterKey(
  db: Db,
  opts: { masterKey?: string; masterKeyPrevious?: string; dataDir: string },
): Promise<MasterKeyState> {
  const refusal = masterKeyRefusal(opts.masterKey, opts.masterKeyPrevious);
  if (refusal) throw new Error(refusal);
  if (opts.masterKey !== undefined) {
    const hash = sha256Hex(opts.masterKey);
    const previousHash = opts.masterKeyPrevious === undefined ? undefined : sha256Hex(opts.masterKeyPrevious);
    await setSetting(db, HASH, hash);
    if (previousHash) await setSetting(db, PREVIOUS_HASH, previousHash);
    else await db.delete(settings).where(eq(settings.key, PREVIOUS_HASH));
    await setSetting(db, SOURCE, 'configured');
    return { hash, previousHash, source: 'configured' };
  }
  const existing = await getSetting(db, HASH);
  if (existing) return { hash: existing, previousHash: await getSetting(db, PREVIOUS_HASH), source: 'generated' };
  const key = randomBytes(64).toString('hex');
  const file = path.join(opts.dataDir, 'master-key');
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  const hash = sha256Hex(key);
  await setSetting(db, HASH, hash);
  await setSetting(db, SOURCE, 'generated');
  return { hash, source: 'generated', generated: { key, file } };
}

/**
 * What is wrong with MASTER_KEY and MASTER_KEY_PREVIOUS, or null (config.ts refuses the same at
 * start; this guards every other caller). The messages never quote a key.
 */
export function masterKeyRefusal(current: string | undefined, previous: string | undefined): string | null {
  if (current !== undefined && !MASTER_KEY_PATTERN.test(current)) return 'MASTER_KEY must be 128 lowercase hexadecimal characters';
  if (previous === undefined) return null;
  if (!MASTER_KEY_PATTERN.test(previous)) return 'MASTER_KEY_PREVIOUS must be 128 lowercase hexadecimal characters';
  if (current === undefined)
    return 'MASTER_KEY_PREVIOUS is set without MASTER_KEY: during a rotation set MASTER_KEY to the new key and MASTER_KEY_PREVIOUS to the old one';
  if (current === previous) return 'MASTER_KEY_PREVIOUS equals MASTER_KEY: set it to the old key during a rotation, or unset it';
  return null;
}

/** `Authorization: SuperAdmin <key>` → the key's shape, or null when absent or malformed. */
export function presentedMasterKey(header: string | undefined): string | null {
  const match = /^SuperAdmin ([0-9a-f]{128})$/.exec(header ?? '');
  return match?.[1] ?? null;
}

function matchesHash(key: string, hash: string | undefined): boolean {
  const a = Buffer.from(sha256Hex(key), 'hex');
  const b = Buffer.from(hash ?? '', 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Which of this instance's keys a presented key is. The rule of a rotation: an instance accepts its
 * MASTER_KEY and, while set, its MASTER_KEY_PREVIOUS, alike; nothing else. So during a rolling
 * restart to a new key, the old key works on every instance (those not yet restarted know only
 * it), and the new key works everywhere once the last instance is restarted. Both hashes are
 * compared every time, so the answer's timing does not tell which key matched.
 */
export function whichMasterKey(key: string, keys: MasterKeyHashes): 'current' | 'previous' | null {
  const current = matchesHash(key, keys.hash);
  const previous = matchesHash(key, keys.previousHash);
  return current ? 'current' : previous ? 'previous' : null;
}
