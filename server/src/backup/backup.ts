/**
 * Backups (docs/operations.md §8). The embedded database is dumped by the process that holds it
 * (PGlite is single-process): the running server when there is one, through the operator socket,
 * else the `backup` command itself. PostgreSQL is dumped by `pg_dump`. Every completed backup is
 * recorded in `backups`, which the creator's compliance panel reads.
 *
 * An archive holds what the database holds: ciphertext, sealed key bundles and hashes, never a
 * message's plaintext or a private key in the clear; but also unused invite keys and security
 * events with addresses, so it is as sensitive as the database.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { desc } from 'drizzle-orm';
import type { Db } from '../db/client';
import { backups } from '../db/schema';

export type BackupKind = (typeof backups.$inferInsert)['kind'];
export type BackupRecord = typeof backups.$inferSelect;
/** What a completed backup reports: where the archive is and how to recognise it. */
export type BackupResult = { file: string; bytes: number; sha256: string; kind: BackupKind };

/** Where backups go unless `--out` says otherwise. */
export const backupDir = (dataDir: string) => path.join(dataDir, 'backups');

/**
 * `enclave-20261123T044800.123Z.tar.gz`: ISO 8601 in its basic form, which has no colons (they
 * break scp and Windows file names); names sort by time.
 */
export function backupFileName(kind: BackupKind, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '');
  return `enclave-${stamp}${kind === 'embedded' ? '.tar.gz' : '.dump'}`;
}

/**
 * The archive's path: `out` as given (a folder gets the default name inside it), else the default
 * folder, made owner-only.
 */
export function backupPath(dataDir: string, kind: BackupKind, out?: string, now = new Date()): string {
  if (out === undefined) {
    const dir = backupDir(dataDir);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir leaves an existing folder's mode alone; this one is ours and holds the database.
    fs.chmodSync(dir, 0o700);
    return path.join(dir, backupFileName(kind, now));
  }
  if (fs.existsSync(out) && fs.statSync(out).isDirectory()) return path.join(out, backupFileName(kind, now));
  fs.mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });
  return out;
}

/** The PGlite under a Drizzle handle, or null for PostgreSQL. */
export function embeddedClient(db: Db): PGlite | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof PGlite ? client : null;
}

/**
 * Dumps the embedded database to `file` (gzip tarball of its data directory) and records it. The
 * dump runs between queries (PGlite's query lock) after a checkpoint: every committed transaction
 * is in it, and loading it is at worst a crash recovery from its own WAL.
 */
export async function backupEmbedded(db: Db, file: string): Promise<BackupResult> {
  const client = embeddedClient(db);
  if (!client) throw new Error('not an embedded database');
  await client.exec('CHECKPOINT');
  const archive = new Uint8Array(await (await client.dumpDataDir('gzip')).arrayBuffer());
  // 'wx': never overwrite an earlier backup; 0600: the archive is as secret as the database.
  fs.writeFileSync(file, archive, { mode: 0o600, flag: 'wx' });
  return record(db, { file, bytes: archive.byteLength, sha256: sha256Hex(archive), kind: 'embedded' });
}

/**
 * Dumps PostgreSQL with `pg_dump --format=custom` (which `pg_restore` reads) and records it.
 * Throws `PgDumpMissing` when pg_dump is not on PATH.
 */
export async function backupPostgres(db: Db, databaseUrl: string, file: string): Promise<BackupResult> {
  // pg_dump creates the file itself: make it owner-only before a byte is written.
  fs.writeFileSync(file, '', { mode: 0o600, flag: 'wx' });
  // The password travels in the environment: a command line is visible to every user in `ps`.
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  try {
    await run('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${url.toString()}`], password ? { PGPASSWORD: password } : {});
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  }
  const archive = fs.readFileSync(file);
  return record(db, { file, bytes: archive.byteLength, sha256: sha256Hex(archive), kind: 'postgres' });
}

export class PgDumpMissing extends Error {
  constructor() {
    super('pg_dump was not found on PATH');
  }
}

function run(command: string, args: string[], env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'pipe'], env: { ...process.env, ...env } });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new PgDumpMissing() : err));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`))));
  });
}

async function record(db: Db, result: BackupResult): Promise<BackupResult> {
  await db.insert(backups).values({ fileName: result.file, bytes: result.bytes, sha256: result.sha256, kind: result.kind });
  return result;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The most recent backup, if any. */
export async function lastBackup(db: Db): Promise<BackupRecord | null> {
  const [row] = await db.select().from(backups).orderBy(desc(backups.createdAt), desc(backups.id)).limit(1);
  return row ?? null;
}
