/**
 * Restoring the embedded database from a `backup` archive (docs/operations.md §8). Nothing in the
 * data directory changes until the archive has opened as an Enclave database beside it; the
 * database it replaces is kept aside until the restored one has opened in its place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { migrationsFolder } from '../paths';
import * as schema from '../db/schema';
import { operatorAnswers } from '../operator/socket';
import { sha256Hex } from './backup';

/** A restore that was refused before anything changed. */
export class RestoreRefused extends Error {}

/** What was restored; `backupsCarried`: records of backups the archive did not know of, kept from the replaced database. */
export type RestoreResult = { archive: string; sha256: string; users: number; messages: number; backupsCarried: number };

type BackupRow = typeof schema.backups.$inferSelect;

export async function restoreEmbedded(dataDir: string, archive: string): Promise<RestoreResult> {
  await refuseWhileServed(dataDir);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(archive);
  } catch (err) {
    throw new RestoreRefused(`cannot read ${archive}: ${(err as Error).message}`);
  }
  const dbDir = path.join(dataDir, 'db');
  const stamp = new Date().toISOString().replace(/[-:]/g, '');
  const staging = path.join(dataDir, `db.restoring-${stamp}`);
  const aside = path.join(dataDir, `db.replaced-${stamp}`);

  try {
    await openRestored(staging, bytes);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw new RestoreRefused(`${archive} is not a usable Enclave backup (${(err as Error).message}); nothing was changed`);
  }

  // A server may have started while the archive was checked.
  try {
    await refuseWhileServed(dataDir);
  } catch (err) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw err;
  }
  // Read only now: opening a database writes to its directory, and until here nothing may change.
  const hadDb = fs.existsSync(dbDir);
  const history = hadDb ? await backupHistory(dbDir) : [];
  if (hadDb) fs.renameSync(dbDir, aside);
  fs.renameSync(staging, dbDir);
  let settled: { users: number; messages: number; backupsCarried: number };
  try {
    settled = await settle(dbDir, history);
  } catch (err) {
    // Put the old database back as it was.
    fs.rmSync(dbDir, { recursive: true, force: true });
    if (hadDb) fs.renameSync(aside, dbDir);
    throw new Error(`the restored database did not open in place (${(err as Error).message}); the previous one is back`);
  }
  if (hadDb) fs.rmSync(aside, { recursive: true, force: true });
  return { archive, sha256: sha256Hex(bytes), ...settled };
}

async function refuseWhileServed(dataDir: string): Promise<void> {
  if (await operatorAnswers(dataDir)) {
    throw new RestoreRefused(
      `a server is running on ${dataDir} (it answers on its operator socket): stop it first; the embedded database cannot be replaced under a running server`,
    );
  }
}

/** The `backups` rows of the current database; none when it does not open (the reason to restore, perhaps). */
async function backupHistory(dbDir: string): Promise<BackupRow[]> {
  let client: PGlite | null = null;
  try {
    client = await PGlite.create(dbDir);
    const exists = await client.query<{ t: string | null }>(`SELECT to_regclass('public.backups')::text AS t`);
    if (!exists.rows[0]?.t) return [];
    return await drizzle(client, { schema }).select().from(schema.backups);
  } catch (err) {
    console.warn(`restore: the current database did not open (${(err as Error).message}); its backup history is not carried over`);
    return [];
  } finally {
    await client?.close();
  }
}

/**
 * Loads the archive into `dir` and checks that it is an Enclave database: its tables are there and
 * pending migrations apply (an archive from an older version is brought up to date, as a start
 * would).
 */
async function openRestored(dir: string, archive: Buffer): Promise<void> {
  if (fs.existsSync(dir)) throw new Error(`${dir} already exists`);
  const client = await PGlite.create(dir, { loadDataDir: new Blob([new Uint8Array(tarOf(archive))]) });
  try {
    const users = await client.query<{ t: string | null }>(`SELECT to_regclass('public.users')::text AS t`);
    if (!users.rows[0]?.t) throw new Error('it holds no Enclave tables');
    await migrate(drizzle(client, { schema }), { migrationsFolder });
    await counts(client);
  } finally {
    await client.close();
  }
}

/**
 * Opens the restored database where it now lies (the check that it opens in place), merges in the
 * backup history the archive does not know of, and counts what it holds.
 */
async function settle(dir: string, history: BackupRow[]): Promise<{ users: number; messages: number; backupsCarried: number }> {
  const client = await PGlite.create(dir);
  try {
    const db = drizzle(client, { schema });
    const known = new Set((await db.select({ sha256: schema.backups.sha256 }).from(schema.backups)).map((r) => r.sha256));
    const missing = history.filter((r) => !known.has(r.sha256)).map(({ id: _id, ...row }) => row);
    if (missing.length) await db.insert(schema.backups).values(missing);
    return { ...(await counts(client)), backupsCarried: missing.length };
  } finally {
    await client.close();
  }
}

/**
 * The archive's tar, checked whole: PGlite decompresses a broken gzip in a stream whose error
 * escapes as an unhandled rejection, so a truncated or corrupt archive is refused here first. A
 * tar is 512-byte blocks ending in two zero blocks; anything else was cut short.
 */
function tarOf(archive: Buffer): Buffer {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive);
  } catch (err) {
    throw new Error(`not a complete gzip file: ${(err as Error).message}`);
  }
  const end = tar.subarray(tar.length - 1024);
  if (tar.length < 1024 || tar.length % 512 !== 0 || end.some((b) => b !== 0)) throw new Error('not a complete tar archive');
  return tar;
}

async function counts(client: PGlite): Promise<{ users: number; messages: number }> {
  const r = await client.query<{ users: number; messages: number }>(
    'SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM messages)::int AS messages',
  );
  const row = r.rows[0];
  if (!row) throw new Error('no answer to a count');
  return row;
}
