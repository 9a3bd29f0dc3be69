/**
 * Backups (docs/operations.md §8). The embedded database is dumped by the process that holds it
 * (PGlite is single-process): the running server when there is one, through the operator socket,
 * else the `backup` command itself. PostgreSQL is dumped by `pg_dump`. Every completed backup is
 * recorded in `backups`, which the creator's compliance panel reads.
 *
 * An archive holds what the database holds: ciphertext, sealed key bundles and hashes, never a
 * message's plaintext or a private key in the clear; but also unused invite keys and security
 * events with addresses, so it is as sensitive as the database. An embedded backup also carries
 * the attachments' ciphertext when they are local files, so that one archive restores everything.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { desc } from 'drizzle-orm';
import * as tar from 'tar-stream';
import { z } from 'zod';
import { embeddedClient, type Db } from '../db/client';
import { erasableTables, scrub } from '../db/erasure';
import { attachments, backups } from '../db/schema';

export type BackupKind = (typeof backups.$inferInsert)['kind'];
export type BackupRecord = typeof backups.$inferSelect;
/** What a completed backup reports: where the archive is and how to recognise it. */
export const backupResultSchema = z.object({
  file: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string(),
  kind: z.enum(backups.kind.enumValues),
});
export type BackupResult = z.infer<typeof backupResultSchema>;

/** Where backups go unless `--out` says otherwise. */
export const backupDir = (dataDir: string) => path.join(dataDir, 'backups');

/**
 * `enclave-20261123T044800.123Z.tar`: ISO 8601 in its basic form, which has no colons (they
 * break scp and Windows file names); names sort by time.
 */
export function backupFileName(kind: BackupKind, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '');
  return `enclave-${stamp}${kind === 'embedded' ? '.tar' : '.dump'}`;
}

/**
 * An embedded backup is a tar: the database (PGlite's own gzipped dump of its data directory), one
 * entry per attachment file, and last this manifest, whose presence and count show that the archive
 * is whole. The tar itself is not compressed: the attachments are ciphertext, which no compressor
 * shrinks. Archives of before the manifest are that database dump alone (restore.ts reads both).
 */
export const ARCHIVE_MANIFEST = 'enclave-backup.json';
export const ARCHIVE_DATABASE = 'database.tar.gz';
export const ARCHIVE_ATTACHMENTS = 'attachments/';
export const archiveManifestSchema = z.strictObject({
  format: z.literal(2),
  createdAt: z.iso.datetime(),
  /** `external`: attachments live in a bucket the archive does not hold. */
  attachments: z.enum(['included', 'external']),
  /** Attachment entries before the manifest. */
  attachmentCount: z.number().int().nonnegative(),
});

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

/**
 * Writes the embedded database and, when `attachmentsDir` is given (local attachments), the files
 * of its attachments to `file`, and records the backup. Erased rows are scrubbed first (ending with
 * a checkpoint), so that the archive holds no erased secret, however recent; the dump runs between
 * queries (PGlite's query lock): every committed transaction is in it, and loading it is at worst
 * a crash recovery from its own WAL. Attachment ids are read after the dump, so every attachment
 * the dump knows is there (unless deleted meanwhile, as it would be anyway); files are streamed.
 */
export async function backupEmbedded(db: Db, file: string, attachmentsDir: string | null): Promise<BackupResult> {
  const client = embeddedClient(db);
  if (!client) throw new Error('not an embedded database');
  await scrub(db, erasableTables);
  const database = Buffer.from(await (await client.dumpDataDir()).arrayBuffer());
  const ids = attachmentsDir ? (await db.select({ id: attachments.id }).from(attachments)).map((r) => r.id) : [];

  // 'wx': never overwrite an earlier backup; 0600: the archive is as secret as the database.
  const out = await fs.promises.open(file, 'wx', 0o600);
  const pack = tar.pack();
  const measure = measuring();
  const fill = async () => {
    await addEntry(pack, ARCHIVE_DATABASE, database);
    let attachmentCount = 0;
    for (const id of attachmentsDir ? ids : []) {
      if (await addFile(pack, `${ARCHIVE_ATTACHMENTS}${id}`, path.join(attachmentsDir!, id))) attachmentCount += 1;
    }
    const manifest: z.input<typeof archiveManifestSchema> = {
      format: 2,
      createdAt: new Date().toISOString(),
      attachments: attachmentsDir ? 'included' : 'external',
      attachmentCount,
    };
    await addEntry(pack, ARCHIVE_MANIFEST, Buffer.from(JSON.stringify(manifest)));
    pack.finalize();
  };
  try {
    // A failed write (a full disk) ends both: the pipeline rejects and destroys the pack.
    await Promise.all([pipeline(pack, measure.stream, out.createWriteStream()), fill()]);
  } catch (err) {
    pack.destroy();
    await out.close().catch(() => undefined);
    fs.rmSync(file, { force: true });
    throw err;
  }
  return record(db, { file, ...measure.result(), kind: 'embedded' });
}

/** A pass-through that hashes and counts what flows through it (an archive as it is written or read). */
export function measuring(): { stream: Transform; result: () => { sha256: string; bytes: number } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ sha256: hash.digest('hex'), bytes }) };
}

function addEntry(pack: tar.Pack, name: string, content: Buffer): Promise<void> {
  return new Promise((resolve, reject) => pack.entry({ name, mode: 0o600 }, content, (err) => (err ? reject(err) : resolve())));
}

/** Streams one attachment file in; false for one deleted since its id was read, left out. */
async function addFile(pack: tar.Pack, name: string, file: string): Promise<boolean> {
  let handle: fs.promises.FileHandle;
  try {
    handle = await fs.promises.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
  try {
    // A blob never changes once renamed into place (attachments/store.ts): its size holds.
    const { size } = await handle.stat();
    await pipeline(handle.createReadStream({ autoClose: false }), pack.entry({ name, size, mode: 0o600 }));
    return true;
  } finally {
    await handle.close();
  }
}

/**
 * Dumps PostgreSQL with `pg_dump --format=custom` (which `pg_restore` reads) and records it.
 * Throws `PgClientMissing` when pg_dump is not on PATH.
 */
export async function backupPostgres(db: Db, databaseUrl: string, file: string): Promise<BackupResult> {
  // pg_dump creates the file itself: make it owner-only before a byte is written.
  fs.writeFileSync(file, '', { mode: 0o600, flag: 'wx' });
  const { url, env } = withoutPassword(databaseUrl);
  try {
    await run('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${url}`], env);
  } catch (err) {
    fs.rmSync(file, { force: true });
    throw err;
  }
  const archive = fs.readFileSync(file);
  return record(db, { file, bytes: archive.byteLength, sha256: sha256Hex(archive), kind: 'postgres' });
}

/** pg_dump or pg_restore is not on PATH. */
export class PgClientMissing extends Error {
  constructor(readonly command: string) {
    super(`${command} was not found on PATH`);
  }
}

/** The URL for a PostgreSQL client tool, and its password apart: a command line is visible to every user in `ps`, the environment is not. */
export function withoutPassword(databaseUrl: string): { url: string; env: Record<string, string> } {
  const url = new URL(databaseUrl);
  const password = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env: password ? { PGPASSWORD: password } : {} };
}

/** Runs a PostgreSQL client tool: its standard output, or its exit code and standard error as the failure. */
export function run(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new PgClientMissing(command) : err));
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`))));
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
