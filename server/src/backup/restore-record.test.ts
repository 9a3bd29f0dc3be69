/**
 * A restore is recorded for the compliance panel (docs/operations.md §8): restored onto an empty
 * PostgreSQL database by `npm run restore` (restorePostgres), or onto a fresh embedded data
 * directory, the panel names the archive restored and counts it as a backup, where a restore by
 * hand leaves "No backup recorded" (an archive never holds its own record).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { routes } from '@enclave/protocol';
import { count } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupCheck } from '../creator/security';
import { openDatabase, type Database } from '../db/client';
import { backups, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, makeDatabase, POSTGRES_ADMIN_URL, startServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { backupEmbedded, backupPath, backupPostgres, lastBackup, sha256Hex, type BackupRecord } from './backup';
import { RestoreRefused, restoreEmbedded } from './restore';
import { archiveCreatedAt, restorePostgres } from './restore-postgres';
import { lastRestore, type RestoreRecord } from './restore-record';

/** The "Backups" check of a server over `database`, as the creator's console reads it. */
async function backupsPanel(database: Database) {
  const server = await startServer(database);
  try {
    const c = await new TestMember.Anonymous(server.url).call(routes.compliance, {}, creatorHeaders);
    return c.checks.find((x) => x.name === 'Backups');
  } finally {
    await server.close();
  }
}

const hasPgTools = (() => {
  try {
    execFileSync('pg_restore', ['--version'], { stdio: 'ignore' });
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A database with nothing in it (makeDatabase's are migrated), dropped after the file. */
async function emptyDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `enclave_test_${randomBytes(6).toString('hex')}`;
  const admin = async (query: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    await client.query(query);
    await client.end();
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

describe.runIf(backends.includes('postgres') && hasPgTools)('a PostgreSQL restore, recorded', () => {
  let source: Awaited<ReturnType<typeof makeDatabase>>;
  const targets: Awaited<ReturnType<typeof emptyDatabase>>[] = [];
  const opened: Database[] = [];
  let dir: string;
  let archive: string;
  const target = async () => {
    const t = await emptyDatabase();
    targets.push(t);
    return t.url;
  };
  const open = async (url: string) => {
    const database = await openDatabase({ databaseUrl: url, dataDir: dir });
    opened.push(database);
    return database;
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-pgrestore-'));
    source = await makeDatabase('postgres');
    const server = await startServer(source.database);
    const [key] = await mintKeys(source.database.db, { count: 1 });
    const alice = await TestMember.join(server.url, key!, 'alice');
    expect((await alice.send('all', 'before the backup')).status).toBe(201);
    await server.close();
    archive = (await backupPostgres(source.database.db, source.url!, backupPath(dir, 'postgres'))).file;
  });
  afterAll(async () => {
    for (const d of opened) await d.close();
    await source?.database.close();
    await source?.drop();
    for (const t of targets) await t.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('by hand (pg_restore alone), the panel finds no backup: the dump does not hold its own record', async () => {
    const url = await target();
    execFileSync('pg_restore', ['--no-owner', `--dbname=${url}`, archive]);
    const database = await open(url);
    expect(await lastBackup(database.db)).toBeNull();
    expect(await backupsPanel(database)).toMatchObject({ status: 'warning', description: expect.stringMatching(/^No backup recorded/) });
  });

  it('by npm run restore, the panel names the archive restored, and counts it as the last backup', async () => {
    const url = await target();
    const result = await restorePostgres(url, archive, dir);
    const listing = execFileSync('pg_restore', ['--list', archive], { encoding: 'utf8' });
    const bytes = fs.readFileSync(archive);
    expect(result).toMatchObject({ archive, kind: 'postgres', sha256: sha256Hex(bytes), bytes: bytes.byteLength, users: 1, messages: 1 });
    expect(result.takenAt).toBe(archiveCreatedAt(listing)!.toISOString());
    const database = await open(url);
    expect(await lastRestore(database.db)).toEqual({
      archive,
      kind: 'postgres',
      sha256: result.sha256,
      bytes: result.bytes,
      takenAt: result.takenAt,
      restoredAt: result.restoredAt,
    });
    expect(await lastBackup(database.db)).toMatchObject({
      fileName: archive,
      sha256: result.sha256,
      kind: 'postgres',
      createdAt: new Date(result.takenAt),
    });
    const check = await backupsPanel(database);
    expect(check).toMatchObject({ status: 'compliant' });
    expect(check?.description).toBe(
      `Restored ${result.restoredAt} (less than an hour ago) from ${path.basename(archive)}, taken ${result.takenAt}. ` +
        `Last backup ${result.takenAt} (less than an hour ago): ${path.basename(archive)}, ${(bytes.byteLength / 1024).toFixed(1)} KiB, PostgreSQL. ` +
        'None since the restore: what was written after it is in no backup yet.',
    );
    // A backup after the restore is the last one; the restore is still named.
    await backupPostgres(database.db, url, backupPath(dir, 'postgres'));
    expect((await backupsPanel(database))?.description).not.toContain('None since the restore');
  });

  it('refuses a database that is not empty, and a file that is not an Enclave dump, changing nothing', async () => {
    const url = await target();
    await restorePostgres(url, archive, dir);
    const database = await open(url);
    const before = {
      users: (await database.db.select({ n: count() }).from(users))[0]?.n,
      backups: (await database.db.select({ n: count() }).from(backups))[0]?.n,
    };
    await expect(restorePostgres(url, archive, dir)).rejects.toThrow(RestoreRefused);
    await expect(restorePostgres(url, archive, dir)).rejects.toThrow(/is not empty .*restore into an empty database/);
    expect({
      users: (await database.db.select({ n: count() }).from(users))[0]?.n,
      backups: (await database.db.select({ n: count() }).from(backups))[0]?.n,
    }).toEqual(before);

    const empty = await target();
    const garbage = path.join(dir, 'garbage.dump');
    fs.writeFileSync(garbage, 'not a dump');
    await expect(restorePostgres(empty, garbage, dir)).rejects.toThrow(/is not a pg_dump archive pg_restore can read/);
    const foreign = path.join(dir, 'foreign.dump');
    execFileSync('pg_dump', ['--format=custom', `--file=${foreign}`, `--dbname=${empty}`]);
    await expect(restorePostgres(empty, foreign, dir)).rejects.toThrow(/is not a dump of an Enclave database/);
    await expect(restorePostgres(empty, path.join(dir, 'missing.dump'), dir)).rejects.toThrow(/cannot read/);
    // Still empty: a real archive restores into it.
    expect(await restorePostgres(empty, archive, dir)).toMatchObject({ users: 1, messages: 1 });
  });
});

describe('an embedded restore onto a fresh data directory, recorded', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-restore-record-'));
    dirs.push(d);
    return d;
  };

  it('names the archive restored and counts it as the last backup, which the archive itself does not hold', async () => {
    const from = tmp();
    const source = await openDatabase({ dataDir: from });
    await mintKeys(source.db, { count: 2 });
    const archive = (await backupEmbedded(source.db, backupPath(from, 'embedded'), null)).file;
    await source.close();

    const to = tmp();
    const result = await restoreEmbedded(to, archive);
    expect(result).toMatchObject({ backupsCarried: 0 });
    const database = await openDatabase({ dataDir: to });
    try {
      const restore = await lastRestore(database.db);
      const manifest = JSON.parse(execFileSync('tar', ['xOf', archive, 'enclave-backup.json'], { encoding: 'utf8' })) as {
        createdAt: string;
      };
      expect(restore).toMatchObject({ archive, kind: 'embedded', sha256: result.sha256, takenAt: manifest.createdAt });
      expect(await lastBackup(database.db)).toMatchObject({
        fileName: archive,
        sha256: result.sha256,
        createdAt: new Date(manifest.createdAt),
      });
      const check = await backupsPanel(database);
      expect(check).toMatchObject({ status: 'compliant' });
      expect(check?.description).toMatch(
        new RegExp(
          `^Restored .* from ${path.basename(archive).replace(/\./g, '\\.')}, taken ${manifest.createdAt}\\. Last backup .*embedded database\\. None since the restore`,
        ),
      );
    } finally {
      await database.close();
    }
    // Three embedded databases opened, one backed up and restored: on a busy machine past the default 30 s.
  }, 90_000);
});

describe('the compliance check "Backups" after a restore', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const hoursBefore = (h: number) => new Date(now.getTime() - h * 3_600_000);
  const taken = (h: number): BackupRecord => ({
    id: 1,
    createdAt: hoursBefore(h),
    fileName: '/srv/b/enclave-old.dump',
    bytes: 2048,
    sha256: 'ab'.repeat(32),
    kind: 'postgres',
  });
  const restored = (h: number, takenH: number): RestoreRecord => ({
    archive: '/srv/b/enclave-old.dump',
    sha256: 'ab'.repeat(32),
    bytes: 2048,
    kind: 'postgres',
    takenAt: hoursBefore(takenH).toISOString(),
    restoredAt: hoursBefore(h).toISOString(),
  });

  it.each([
    [
      'a 3-day-old archive restored 2 h ago, no backup since',
      taken(72),
      restored(2, 72),
      'compliant',
      /^Restored .* \(2 h ago\) from enclave-old\.dump, taken .*Last backup .*\(3 days ago\).* None since the restore/,
    ],
    [
      'the same 30 h after the restore',
      taken(72),
      restored(30, 72),
      'warning',
      /None since the restore.* Over 24 hours since the restore: run npm run backup/,
    ],
    [
      'a backup 2 h ago, after a restore 3 days ago',
      taken(2),
      restored(72, 100),
      'compliant',
      /^Restored .*\(3 days ago\).*Last backup .*\(2 h ago\)[^]*PostgreSQL\.$/,
    ],
    [
      'a backup 30 h ago, after a restore 3 days ago',
      taken(30),
      restored(72, 100),
      'warning',
      /\(30 h ago\).*Older than 24 hours: run npm run backup/,
    ],
  ] as const)('%s: %s', (_case, last, restore, status, description) => {
    const check = backupCheck(last, now, restore);
    expect(check.status).toBe(status);
    expect(check.description).toMatch(description);
  });
});
