/**
 * Restoring the embedded database, and the attachments an archive carries, from a `backup` archive
 * (docs/operations.md §8). Nothing in the data directory changes until the archive has been read
 * whole and its database has opened beside it; what it replaces is kept aside until the restored
 * database has opened in its place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import * as tar from 'tar-stream';
import { z } from 'zod';
import { isAttachmentId } from '../attachments/blobs';
import { localAttachmentsDir } from '../attachments/store';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { migrationsFolder } from '../paths';
import * as schema from '../db/schema';
import { operatorAnswers } from '../operator/socket';
import { ARCHIVE_ATTACHMENTS, ARCHIVE_DATABASE, ARCHIVE_MANIFEST, archiveManifestSchema, measuring, sha256Hex } from './backup';
import { recordRestore } from './restore-record';

/** A restore that was refused before anything changed. */
export class RestoreRefused extends Error {}

/**
 * How far an archive's database may inflate: far above a real embedded database, but finite, so
 * that a small crafted archive cannot take the memory of the machine (it is inflated in memory
 * whole, and Node holds no Buffer past 4 GiB anyway).
 */
export const MAX_DATABASE_BYTES = 3 * 1024 ** 3;

/**
 * What was restored. `attachments`: files put in place, or null when the archive carries none
 * (older archives, attachments in a bucket) and the folder was left as it was. `attachmentsMissing`:
 * attachments the restored database knows whose file is not in the folder. `backupsCarried`:
 * records of backups the archive did not know of, kept from the replaced database.
 */
export type RestoreResult = {
  archive: string;
  sha256: string;
  users: number;
  messages: number;
  attachments: number | null;
  attachmentsMissing: number;
  backupsCarried: number;
};

type BackupRow = typeof schema.backups.$inferSelect;

/** One folder of the data directory being replaced: the new one is staged beside it, the old one set aside. */
type Swap = { live: string; staging: string; aside: string; had: boolean };

export async function restoreEmbedded(
  dataDir: string,
  archive: string,
  { maxDatabaseBytes = MAX_DATABASE_BYTES } = {},
): Promise<RestoreResult> {
  await refuseWhileServed(dataDir);
  const stamp = new Date().toISOString().replace(/[-:]/g, '');
  const swap = (live: string): Swap => ({ live, staging: `${live}.restoring-${stamp}`, aside: `${live}.replaced-${stamp}`, had: false });
  const db = swap(path.join(dataDir, 'db'));
  const files = swap(localAttachmentsDir(dataDir));
  const dropStaging = () => [db, files].forEach((s) => fs.rmSync(s.staging, { recursive: true, force: true }));

  let read: ReadArchive;
  try {
    read = await readArchive(archive, files.staging);
    await openRestored(db.staging, read.database, maxDatabaseBytes);
  } catch (err) {
    dropStaging();
    if (err instanceof RestoreRefused) throw err;
    throw new RestoreRefused(`${archive} is not a usable Enclave backup (${(err as Error).message}); nothing was changed`);
  }

  // A server may have started while the archive was checked.
  try {
    await refuseWhileServed(dataDir);
  } catch (err) {
    dropStaging();
    throw err;
  }
  // Read only now: opening a database writes to its directory, and until here nothing may change.
  const history = fs.existsSync(db.live) ? await backupHistory(db.live) : [];
  const swaps = read.attachments === null ? [db] : [db, files];
  if (read.attachments !== null) fs.mkdirSync(files.staging, { recursive: true, mode: 0o700 });
  for (const s of swaps) {
    s.had = fs.existsSync(s.live);
    if (s.had) fs.renameSync(s.live, s.aside);
    fs.renameSync(s.staging, s.live);
  }
  let settled: Omit<RestoreResult, 'archive' | 'sha256' | 'attachments'>;
  try {
    const restore = {
      archive,
      sha256: read.sha256,
      bytes: fs.statSync(archive).size,
      kind: 'embedded' as const,
      takenAt: read.takenAt,
      restoredAt: new Date().toISOString(),
    };
    settled = await settle(db.live, history, files.live, restore);
    ownerOnly(db.live);
  } catch (err) {
    // Put back what was there, as it was.
    for (const s of swaps) {
      fs.rmSync(s.live, { recursive: true, force: true });
      if (s.had) fs.renameSync(s.aside, s.live);
    }
    throw new Error(`the restored database did not open in place (${(err as Error).message}); the previous one is back`);
  }
  for (const s of swaps) fs.rmSync(s.aside, { recursive: true, force: true });
  return { archive, sha256: read.sha256, attachments: read.attachments, ...settled };
}

/**
 * An archive read whole: its hash, its database dump, how many attachment files it staged (null: it
 * carries none), and when it was taken (its manifest's time; the file's for the older form).
 */
type ReadArchive = { sha256: string; database: Buffer; attachments: number | null; takenAt: string };

/**
 * Reads an archive of either form (backup.ts): an older one is the gzipped database dump alone; a
 * tar holds the dump, attachment files (written to `staging`) and, last, the manifest that says
 * the archive is whole. Anything else in it refuses the archive.
 */
async function readArchive(archive: string, staging: string): Promise<ReadArchive> {
  let head: Buffer;
  try {
    const handle = await fs.promises.open(archive, 'r');
    try {
      head = Buffer.alloc(2);
      await handle.read(head, 0, 2, 0);
    } finally {
      await handle.close();
    }
  } catch (err) {
    throw new RestoreRefused(`cannot read ${archive}: ${(err as Error).message}`);
  }
  if (head[0] === 0x1f && head[1] === 0x8b) {
    const bytes = fs.readFileSync(archive);
    return { sha256: sha256Hex(bytes), database: bytes, attachments: null, takenAt: fs.statSync(archive).mtime.toISOString() };
  }

  const measure = measuring();
  const extract = tar.extract();
  const reading = pipeline(fs.createReadStream(archive), measure.stream, extract);
  // Its failure (a cut-off archive) also ends the loop below, which reports it.
  reading.catch(() => undefined);
  let database: Buffer | null = null;
  let staged = 0;
  let manifest: ReturnType<typeof archiveManifestSchema.parse> | null = null;
  for await (const entry of extract) {
    const { name, type } = entry.header;
    const id = name.startsWith(ARCHIVE_ATTACHMENTS) ? name.slice(ARCHIVE_ATTACHMENTS.length) : null;
    if (manifest) throw new Error(`${name} comes after the manifest`);
    if (type !== 'file') throw new Error(`${name} is not a file`);
    if (name === ARCHIVE_DATABASE && !database) {
      database = await bufferOf(entry);
    } else if (id !== null && isAttachmentId(id)) {
      if (!staged) fs.mkdirSync(staging, { mode: 0o700 });
      const file = await fs.promises.open(path.join(staging, id), 'wx', 0o600);
      try {
        for await (const chunk of entry) await file.write(chunk as Buffer);
      } finally {
        await file.close();
      }
      staged += 1;
    } else if (name === ARCHIVE_MANIFEST) {
      manifest = archiveManifestSchema.parse(JSON.parse((await bufferOf(entry)).toString('utf8')));
    } else {
      throw new Error(`unexpected entry ${JSON.stringify(name.slice(0, 80))}`);
    }
  }
  await reading;
  if (!manifest) throw new Error('no manifest at its end: the archive is cut short or not a backup');
  if (!database) throw new Error('no database in it');
  if (staged !== manifest.attachmentCount)
    throw new Error(`${staged} attachment files where the manifest says ${manifest.attachmentCount}`);
  if (staged && manifest.attachments === 'external') throw new Error('attachment files where the manifest says they are kept elsewhere');
  return {
    sha256: measure.result().sha256,
    database,
    attachments: manifest.attachments === 'included' ? staged : null,
    takenAt: manifest.createdAt,
  };
}

async function bufferOf(entry: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
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
    if (!(await tableExists(client, 'backups'))) return [];
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
async function openRestored(dir: string, archive: Buffer, maxBytes: number): Promise<void> {
  if (fs.existsSync(dir)) throw new Error(`${dir} already exists`);
  const client = await PGlite.create(dir, { loadDataDir: new Blob([new Uint8Array(tarOf(archive, maxBytes))]) });
  try {
    if (!(await tableExists(client, 'users'))) throw new Error('it holds no Enclave tables');
    await migrate(drizzle(client, { schema }), { migrationsFolder });
    await counts(client);
  } finally {
    await client.close();
  }
  ownerOnly(dir);
}

/**
 * Folders 700 and files 600 under `dir`, as a fresh start leaves the data directory: PGlite
 * writes the files of a loaded archive with the modes the archive carries (666) and its folders
 * with the process's umask.
 */
function ownerOnly(dir: string): void {
  fs.chmodSync(dir, 0o700);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    fs.chmodSync(path.join(entry.parentPath, entry.name), entry.isDirectory() ? 0o700 : 0o600);
  }
}

/**
 * Opens the restored database where it now lies (the check that it opens in place), merges in the
 * backup history the archive does not know of, records the restore (restore-record.ts), and counts
 * what it holds, and which of its attachments have no file in `attachmentsDir`.
 */
async function settle(
  dir: string,
  history: BackupRow[],
  attachmentsDir: string,
  restore: Parameters<typeof recordRestore>[1],
): Promise<Omit<RestoreResult, 'archive' | 'sha256' | 'attachments'>> {
  const client = await PGlite.create(dir);
  try {
    const db = drizzle(client, { schema });
    const known = new Set((await db.select({ sha256: schema.backups.sha256 }).from(schema.backups)).map((r) => r.sha256));
    const missing = history.filter((r) => !known.has(r.sha256)).map(({ id: _id, ...row }) => row);
    if (missing.length) await db.insert(schema.backups).values(missing);
    await recordRestore(db as unknown as Db, restore);
    const ids = await db.select({ id: schema.attachments.id }).from(schema.attachments);
    const attachmentsMissing = ids.filter((r) => !fs.existsSync(path.join(attachmentsDir, r.id))).length;
    return { ...(await counts(client)), attachmentsMissing, backupsCarried: missing.length };
  } finally {
    await client.close();
  }
}

/**
 * The archive's tar, checked whole: PGlite decompresses a broken gzip in a stream whose error
 * escapes as an unhandled rejection, so a truncated or corrupt archive is refused here first. A
 * tar is 512-byte blocks ending in two zero blocks; anything else was cut short.
 */
function tarOf(archive: Buffer, maxBytes: number): Buffer {
  let tar: Buffer;
  try {
    tar = gunzipSync(archive, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new RestoreRefused(
        `the archive's database inflates past ${mib(maxBytes)} MiB, more than any real one holds; nothing was changed`,
      );
    }
    throw new Error(`not a complete gzip file: ${(err as Error).message}`);
  }
  const end = tar.subarray(tar.length - 1024);
  if (tar.length < 1024 || tar.length % 512 !== 0 || end.some((b) => b !== 0)) throw new Error('not a complete tar archive');
  return tar;
}

const mib = (bytes: number) => Math.round(bytes / 1024 ** 2);

async function counts(client: PGlite): Promise<{ users: number; messages: number }> {
  const r = await client.query('SELECT (SELECT count(*) FROM users)::int AS users, (SELECT count(*) FROM messages)::int AS messages');
  const [row] = rowsOf(r, z.object({ users: z.number().int(), messages: z.number().int() }));
  if (!row) throw new Error('no answer to a count');
  return row;
}

async function tableExists(client: PGlite, table: string): Promise<boolean> {
  const r = await client.query(`SELECT to_regclass($1)::text AS t`, [`public.${table}`]);
  return rowsOf(r, z.object({ t: z.string().nullable() }))[0]?.t != null;
}
