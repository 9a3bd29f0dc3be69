/**
 * The network creator's master key (docs/security.md §8): 128 lowercase hex. Configured by
 * MASTER_KEY, or generated at the first start, printed once and written to a file only the owner
 * can read. The database keeps only its SHA-256.
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
const SOURCE = 'master_key_source';

export type MasterKeyState = {
  hash: string;
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

export async function ensureMasterKey(db: Db, opts: { masterKey?: string; dataDir: string }): Promise<MasterKeyState> {
  if (opts.masterKey !== undefined) {
    if (!MASTER_KEY_PATTERN.test(opts.masterKey)) throw new Error('MASTER_KEY must be 128 lowercase hexadecimal characters');
    const hash = sha256Hex(opts.masterKey);
    await setSetting(db, HASH, hash);
    await setSetting(db, SOURCE, 'configured');
    return { hash, source: 'configured' };
  }
  const existing = await getSetting(db, HASH);
  if (existing) return { hash: existing, source: 'generated' };
  const key = randomBytes(64).toString('hex');
  const file = path.join(opts.dataDir, 'master-key');
  fs.mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, `${key}\n`, { mode: 0o600 });
  const hash = sha256Hex(key);
  await setSetting(db, HASH, hash);
  await setSetting(db, SOURCE, 'generated');
  return { hash, source: 'generated', generated: { key, file } };
}

/** `Authorization: SuperAdmin <key>` → the key's shape, or null when absent or malformed. */
export function presentedMasterKey(header: string | undefined): string | null {
  const match = /^SuperAdmin ([0-9a-f]{128})$/.exec(header ?? '');
  return match?.[1] ?? null;
}

export function matchesMasterKey(key: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(key), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
