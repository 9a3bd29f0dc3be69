/**
 * Restoring PostgreSQL from a `backup` archive (pg_dump's custom format) into an empty database
 * (docs/operations.md §8): `pg_restore` in one transaction, then the migrations newer than the
 * archive, then the restore recorded for the compliance panel (restore-record.ts). Nothing is
 * changed unless the archive is a readable dump of an Enclave database and the target is empty.
 */
import fs from 'node:fs';
import { count } from 'drizzle-orm';
import pg from 'pg';
import { z } from 'zod';
import { openDatabase } from '../db/client';
import { rowsOf } from '../db/rows';
import { messages, users } from '../db/schema';
import { PgClientMissing, run, sha256Hex, withoutPassword } from './backup';
import { RestoreRefused } from './restore';
import { recordRestore, type RestoreRecord } from './restore-record';

export type PostgresRestoreResult = RestoreRecord & { users: number; messages: number };

/**
 * `pg_restore --list`'s header says when pg_dump ran: ";     Archive created at 2026-11-26 17:45:03 UTC".
 * Null when it does not say so in that form (then the file's time stands for it).
 */
export function archiveCreatedAt(listing: string): Date | null {
  const match = /^;\s+Archive created at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC$/m.exec(listing);
  return match ? new Date(`${match[1]!.replace(' ', 'T')}Z`) : null;
}

export async function restorePostgres(databaseUrl: string, archive: string, dataDir: string): Promise<PostgresRestoreResult> {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(archive);
  } catch (err) {
    throw new RestoreRefused(`cannot read ${archive}: ${(err as Error).message}`);
  }
  let listing: string;
  try {
    listing = await run('pg_restore', ['--list', archive], {});
  } catch (err) {
    if (err instanceof PgClientMissing) throw err;
    throw new RestoreRefused(`${archive} is not a pg_dump archive pg_restore can read (${(err as Error).message}); nothing was changed`);
  }
  if (!/TABLE public users /.test(listing) || !/TABLE DATA drizzle __drizzle_migrations/.test(listing)) {
    throw new RestoreRefused(
      `${archive} is not a dump of an Enclave database (no users table or migration record in it); nothing was changed`,
    );
  }
  await refuseUnlessEmpty(databaseUrl);

  const { url, env } = withoutPassword(databaseUrl);
  // One transaction: a failure half-way leaves the database as empty as it was.
  await run('pg_restore', ['--no-owner', '--exit-on-error', '--single-transaction', `--dbname=${url}`, archive], env);
  const restored: RestoreRecord = {
    archive,
    sha256: sha256Hex(bytes),
    bytes: bytes.byteLength,
    kind: 'postgres',
    takenAt: (archiveCreatedAt(listing) ?? fs.statSync(archive).mtime).toISOString(),
    restoredAt: new Date().toISOString(),
  };
  // Opening applies the migrations newer than the archive, as a start would.
  const database = await openDatabase({ databaseUrl, dataDir, databasePoolMax: 1 });
  try {
    await recordRestore(database.db, restored);
    const [[u], [m]] = await Promise.all([
      database.db.select({ n: count() }).from(users),
      database.db.select({ n: count() }).from(messages),
    ]);
    return { ...restored, users: u?.n ?? 0, messages: m?.n ?? 0 };
  } finally {
    await database.close();
  }
}

/** An Enclave database already there (an instance started on it, or an earlier restore) is never restored over. */
async function refuseUnlessEmpty(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
  } catch (err) {
    throw new RestoreRefused(`cannot connect to DATABASE_URL (${(err as Error).message}); nothing was changed`);
  }
  try {
    const result = await client.query(
      "SELECT count(*)::int AS tables FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', 'information_schema')",
    );
    const tables = rowsOf(result, z.object({ tables: z.number().int() }))[0]?.tables ?? 0;
    if (tables > 0) {
      throw new RestoreRefused(
        `the database of DATABASE_URL is not empty (${tables} tables): restore into an empty database ` +
          '(createdb enclave_restored), with every instance stopped, then point DATABASE_URL at it; nothing was changed',
      );
    }
  } finally {
    await client.end();
  }
}
