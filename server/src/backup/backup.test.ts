/**
 * Backup and restore with real files (docs/operations.md §8): a database with members, messages
 * and an attachment is backed up through the running server, changed, and restored; the rows and
 * the attachment files come back byte for byte, the backup stays recorded, and the compliance panel
 * reports it. A corrupt, cut-off or foreign archive and a running server are refused with the data
 * directory untouched; an archive of the older form (the database alone) still restores.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { decryptAttachment } from '@enclave/crypto';
import { routes } from '@enclave/protocol';
import { asc, count, eq } from 'drizzle-orm';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedClient, openDatabase, type Database, type Db } from '../db/client';
import { accessKeys, backups, epochShares, epochs, messages, securityEvents, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backupViaSocket, startOperatorSocket } from '../operator/socket';
import { backends, creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { localAttachmentsDir } from '../attachments/store';
import { backupCheck } from '../creator/security';
import { uploadFile } from '../testing/attachments';
import { backupEmbedded, backupPath, backupPostgres, lastBackup, sha256Hex, type BackupRecord } from './backup';
import { MAX_DATABASE_BYTES, RestoreRefused, restoreEmbedded } from './restore';

/** What must survive a round trip: row counts, and every message's ciphertext in id order. */
async function snapshot(db: Db) {
  const n = async (table: typeof users | typeof messages | typeof epochs | typeof epochShares | typeof accessKeys) =>
    (await db.select({ n: count() }).from(table))[0]?.n;
  const rows = await db.select({ id: messages.id, ct: messages.encryptedContent }).from(messages).orderBy(asc(messages.id));
  const hash = createHash('sha256');
  for (const r of rows) hash.update(`${r.id}\0${r.ct}\0`);
  return {
    users: await n(users),
    messages: await n(messages),
    epochs: await n(epochs),
    shares: await n(epochShares),
    keys: await n(accessKeys),
    usernames: (await db.select({ u: users.username }).from(users).orderBy(asc(users.username))).map((r) => r.u),
    ciphertext: hash.digest('hex'),
  };
}

/** Every file under `dir` with its content's hash: "untouched" means this is unchanged. */
function treeHash(dir: string): string {
  const hash = createHash('sha256');
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, entry.name);
      hash.update(path.relative(dir, p));
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile()) hash.update(fs.readFileSync(p));
    }
  };
  walk(dir);
  return hash.digest('hex');
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

/** The modes found under `dir` (itself included): `d700`, `f600`, … */
function modesUnder(dir: string): Set<string> {
  const found = new Set([`d${mode(dir).toString(8)}`]);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    found.add(`${entry.isDirectory() ? 'd' : 'f'}${mode(path.join(entry.parentPath, entry.name)).toString(8)}`);
  }
  return found;
}

describe('backup and restore of the embedded database', () => {
  let dataDir: string;
  let database: Database | null = null;
  let server: TestServer | null = null;
  let operator: http.Server | null = null;
  let before: Awaited<ReturnType<typeof snapshot>>;
  let filesBefore: string;
  let archive: string;
  let alice: TestMember;
  let bob: TestMember;
  let sent: Awaited<ReturnType<typeof uploadFile>>;
  const photo = { bytes: new TextEncoder().encode(`a photo ${crypto.randomUUID()}`), name: 'photo.jpg', type: 'image/jpeg' };
  const attachmentsDir = () => localAttachmentsDir(dataDir);

  const start = async () => {
    database = await openDatabase({ dataDir });
    server = await startServer(database, { config: { dataDir, rateLimits: relaxedRateLimits } });
    operator = await startOperatorSocket(dataDir, server.app.ctx, attachmentsDir());
  };
  const stop = async () => {
    await new Promise((resolve) => (operator ? operator.close(resolve) : resolve(undefined)));
    await server?.close();
    await database?.close();
    operator = server = database = null;
  };
  const complianceOf = async () => {
    const c = await new TestMember.Anonymous(server!.url).call(routes.compliance, {}, creatorHeaders);
    return c.checks.find((x) => x.name === 'Backups');
  };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-backup-'));
    await start();
    const [k1, k2] = await mintKeys(database!.db, { count: 3 });
    alice = await TestMember.join(server!.url, k1!, 'alice');
    bob = await TestMember.join(server!.url, k2!, 'bob');
    for (const text of ['one', 'two', '€ three']) expect((await alice.send('all', text)).status).toBe(201);
    expect((await bob.send(alice.id, 'a direct word')).status).toBe(201);
    sent = await uploadFile(alice, bob.id, photo);
    expect((await alice.send(bob.id, { text: 'the photo', attachment: sent.attachment })).status).toBe(201);
  });

  afterAll(async () => {
    await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports no backup before the first', async () => {
    expect(await complianceOf()).toMatchObject({ status: 'warning', description: expect.stringMatching(/^No backup recorded/) });
  });

  it('backs up through the running server: an owner-only archive in DATA_DIR/backups, recorded', async () => {
    before = await snapshot(database!.db);
    expect(before).toMatchObject({ users: 2, messages: 5 });
    filesBefore = treeHash(attachmentsDir());
    expect(fs.readdirSync(attachmentsDir())).toHaveLength(1);
    const result = await backupViaSocket(dataDir, { file: backupPath(dataDir, 'embedded') });
    expect(result).not.toBeNull();
    archive = result!.file;
    expect(path.dirname(archive)).toBe(path.join(dataDir, 'backups'));
    expect(path.basename(archive)).toMatch(/^enclave-\d{8}T\d{6}\.\d{3}Z\.tar$/);
    // What it holds, as tar lists it: the database, the attachment's file, and the manifest last.
    const listing = execFileSync('tar', ['tf', archive], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toEqual([
      'database.tar.gz',
      ...fs.readdirSync(attachmentsDir()).map((id) => `attachments/${id}`),
      'enclave-backup.json',
    ]);
    expect(mode(archive)).toBe(0o600);
    expect(mode(path.dirname(archive))).toBe(0o700);
    const bytes = fs.readFileSync(archive);
    expect(result).toMatchObject({ kind: 'embedded', bytes: bytes.byteLength, sha256: sha256Hex(bytes) });
    expect(await lastBackup(database!.db)).toMatchObject({
      fileName: archive,
      bytes: bytes.byteLength,
      sha256: sha256Hex(bytes),
      kind: 'embedded',
    });
  });

  it('shows the backup on the compliance panel', async () => {
    const check = await complianceOf();
    expect(check).toMatchObject({ status: 'compliant', score: 100 });
    expect(check?.description).toContain(path.basename(archive));
    expect(check?.description).toMatch(/^Last backup \d{4}-\d\d-\d\dT.*less than an hour ago.*MiB, embedded database\.$/);
  });

  it('refuses to restore while a server holds the data directory, and changes nothing', async () => {
    // The live database and files change after the backup, so the restore below has something to undo.
    await database!.db.delete(messages).where(eq(messages.conversationId, 'general'));
    await database!.db.update(users).set({ username: 'mallory' }).where(eq(users.username, 'bob'));
    await database!.db.insert(securityEvents).values({ type: 'after_backup', severity: 'low' });
    await uploadFile(bob, alice.id, photo);
    for (const id of fs.readdirSync(attachmentsDir())) fs.appendFileSync(path.join(attachmentsDir(), id), 'damaged');
    const entries = fs.readdirSync(dataDir).sort();
    await expect(restoreEmbedded(dataDir, archive)).rejects.toThrow(RestoreRefused);
    await expect(restoreEmbedded(dataDir, archive)).rejects.toThrow(/a server is running on .*stop it first/);
    expect(fs.readdirSync(dataDir).sort()).toEqual(entries);
    expect((await snapshot(database!.db)).messages).toBe(2);
    await stop();
  });

  it('refuses a corrupt, cut-off or foreign archive and leaves the data directory untouched', async () => {
    const untouched = { db: treeHash(path.join(dataDir, 'db')), files: treeHash(attachmentsDir()) };
    const entries = fs.readdirSync(dataDir).sort();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-bad-archives-'));
    const bad = (name: string, bytes: string | Buffer) => {
      fs.writeFileSync(path.join(elsewhere, name), bytes);
      return path.join(elsewhere, name);
    };
    const whole = fs.readFileSync(archive);
    // The manifest is the last entry: a 512-byte header, one block of JSON, then two zero blocks.
    const withoutManifest = whole.subarray(0, whole.byteLength - 4 * 512);
    expect(withoutManifest.subarray(-1024).some((b) => b !== 0)).toBe(true);
    fs.writeFileSync(path.join(elsewhere, 'notes.txt'), 'not a database');
    const foreignTar = path.join(elsewhere, 'foreign.tar');
    const foreignGz = path.join(elsewhere, 'foreign.tar.gz');
    execFileSync('tar', ['cf', foreignTar, '-C', elsewhere, 'notes.txt']);
    execFileSync('tar', ['czf', foreignGz, '-C', elsewhere, 'notes.txt']);
    const archives = [
      bad('garbage.tar', 'this is not a tarball'),
      bad('half.tar', whole.subarray(0, Math.floor(whole.byteLength / 2))),
      bad('no-manifest.tar', withoutManifest),
      foreignTar,
      foreignGz,
      path.join(elsewhere, 'missing.tar'),
    ];
    for (const file of archives) {
      await expect(restoreEmbedded(dataDir, file), path.basename(file)).rejects.toThrow(RestoreRefused);
      expect(treeHash(path.join(dataDir, 'db'))).toBe(untouched.db);
      expect(treeHash(attachmentsDir())).toBe(untouched.files);
      expect(fs.readdirSync(dataDir).sort()).toEqual(entries);
    }
    await expect(restoreEmbedded(dataDir, archives[2]!)).rejects.toThrow(/no manifest at its end/);
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  it('refuses an archive whose database inflates past the bound (a gzip bomb), of either form, and changes nothing', async () => {
    const untouched = { db: treeHash(path.join(dataDir, 'db')), files: treeHash(attachmentsDir()) };
    const entries = fs.readdirSync(dataDir).sort();
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-bombs-'));
    // 8 KiB that inflate to 8 MiB of zeros: past a bound of 1 MiB.
    const bomb = gzipSync(Buffer.alloc(8 * 1024 ** 2));
    expect(bomb.byteLength).toBeLessThan(16 * 1024);
    const older = path.join(elsewhere, 'bomb.tar.gz');
    fs.writeFileSync(older, bomb);
    const tarForm = path.join(elsewhere, 'bomb.tar');
    const pack = tar.pack();
    pack.entry({ name: 'database.tar.gz' }, bomb);
    pack.entry(
      { name: 'enclave-backup.json' },
      JSON.stringify({ format: 2, createdAt: new Date().toISOString(), attachments: 'external', attachmentCount: 0 }),
    );
    pack.finalize();
    await pipeline(pack, fs.createWriteStream(tarForm));
    for (const file of [older, tarForm]) {
      await expect(restoreEmbedded(dataDir, file, { maxDatabaseBytes: 1024 ** 2 }), path.basename(file)).rejects.toThrow(
        new RestoreRefused("the archive's database inflates past 1 MiB, more than any real one holds; nothing was changed"),
      );
      expect(treeHash(path.join(dataDir, 'db'))).toBe(untouched.db);
      expect(treeHash(attachmentsDir())).toBe(untouched.files);
      expect(fs.readdirSync(dataDir).sort()).toEqual(entries);
    }
    // The bound in force by default is finite, and far above the archive just taken.
    expect(MAX_DATABASE_BYTES).toBe(3 * 1024 ** 3);
    fs.rmSync(elsewhere, { recursive: true, force: true });
  });

  it('restores the archive: the rows and the attachment files are back byte for byte, the backup still recorded and reported', async () => {
    const result = await restoreEmbedded(dataDir, archive);
    expect(result).toMatchObject({
      users: 2,
      messages: 5,
      attachments: 1,
      attachmentsMissing: 0,
      sha256: sha256Hex(fs.readFileSync(archive)),
      backupsCarried: 1,
    });
    // No staging or replaced directory is left behind.
    expect(fs.readdirSync(dataDir).filter((e) => e.startsWith('db') || e.startsWith('attachments'))).toEqual(['attachments', 'db']);
    expect(treeHash(attachmentsDir())).toBe(filesBefore);
    // Owner-only, as a fresh start leaves them: folders 700, files 600.
    expect(modesUnder(attachmentsDir())).toEqual(new Set(['d700', 'f600']));
    expect(modesUnder(path.join(dataDir, 'db'))).toEqual(new Set(['d700', 'f600']));
    await start();
    expect(await snapshot(database!.db)).toEqual(before);
    // The photo's ciphertext is back as sent, and opens with the key its message carries.
    const ciphertext = new Uint8Array(fs.readFileSync(path.join(attachmentsDir(), sent.attachment.id)));
    expect(ciphertext).toEqual(sent.ciphertext);
    expect(await decryptAttachment({ ciphertext, ...sent.attachment })).toEqual(photo.bytes);
    expect(await database!.db.select().from(securityEvents).where(eq(securityEvents.type, 'after_backup'))).toEqual([]);
    expect(await database!.db.select({ fileName: backups.fileName, kind: backups.kind }).from(backups)).toEqual([
      { fileName: archive, kind: 'embedded' },
    ]);
    expect(await complianceOf()).toMatchObject({ status: 'compliant' });
  });

  it('backs up with no server running (the command opens the database itself)', async () => {
    await stop();
    database = await openDatabase({ dataDir });
    const out = path.join(dataDir, 'elsewhere', 'copy.tar');
    const result = await backupEmbedded(database.db, backupPath(dataDir, 'embedded', out), attachmentsDir());
    expect(result.file).toBe(out);
    expect(mode(out)).toBe(0o600);
    expect((await database.db.select({ n: count() }).from(backups))[0]?.n).toBe(2);
    // Never over an earlier archive, which stays as it was.
    await expect(backupEmbedded(database.db, out, attachmentsDir())).rejects.toThrow(/EEXIST/);
    expect(sha256Hex(fs.readFileSync(out))).toBe(result.sha256);
    await database.close();
    database = null;
  });

  it('restores an archive of the older form (the database alone), leaving the attachment files as they are', async () => {
    database = await openDatabase({ dataDir });
    const older = path.join(dataDir, 'elsewhere', 'older.tar.gz');
    fs.writeFileSync(older, new Uint8Array(await (await embeddedClient(database.db)!.dumpDataDir()).arrayBuffer()));
    await database.close();
    database = null;
    fs.writeFileSync(path.join(attachmentsDir(), crypto.randomUUID()), 'kept as it is');
    const files = treeHash(attachmentsDir());
    expect(await restoreEmbedded(dataDir, older)).toMatchObject({ users: 2, messages: 5, attachments: null, attachmentsMissing: 0 });
    expect(treeHash(attachmentsDir())).toBe(files);
  });
});

const hasPgDump = (() => {
  try {
    execFileSync('pg_dump', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

describe.runIf(backends.includes('postgres') && hasPgDump)('backup of PostgreSQL with pg_dump', () => {
  let made: Awaited<ReturnType<typeof makeDatabase>>;
  let dir: string;

  beforeAll(async () => {
    made = await makeDatabase('postgres');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-pgdump-'));
  });
  afterAll(async () => {
    await made?.database.close();
    await made?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes an owner-only custom-format archive that pg_restore reads, and records it', async () => {
    await mintKeys(made.database.db, { count: 2 });
    const file = backupPath(dir, 'postgres');
    expect(path.basename(file)).toMatch(/^enclave-\d{8}T\d{6}\.\d{3}Z\.dump$/);
    const result = await backupPostgres(made.database.db, made.url!, file);
    expect(mode(file)).toBe(0o600);
    expect(result).toMatchObject({ kind: 'postgres', sha256: sha256Hex(fs.readFileSync(file)) });
    const listing = execFileSync('pg_restore', ['--list', file], { encoding: 'utf8' });
    expect(listing).toMatch(/TABLE DATA public access_keys/);
    expect(listing).toMatch(/TABLE DATA drizzle __drizzle_migrations/);
    expect(await lastBackup(made.database.db)).toMatchObject({ fileName: file, kind: 'postgres' });
  });
});

describe('the compliance check "Backups"', () => {
  const now = new Date('2026-11-23T12:00:00Z');
  const taken = (hoursBefore: number): BackupRecord => ({
    id: 1,
    createdAt: new Date(now.getTime() - hoursBefore * 3_600_000),
    fileName: '/srv/enclave/data/backups/enclave-20261123T020000.000Z.tar.gz',
    bytes: 4_718_592,
    sha256: 'ab'.repeat(32),
    kind: 'embedded',
  });

  it('is compliant while the last backup is younger than 24 hours, and says when and how big', () => {
    expect(backupCheck(taken(10), now)).toEqual({
      name: 'Backups',
      status: 'compliant',
      description: 'Last backup 2026-11-23T02:00:00.000Z (10 h ago): enclave-20261123T020000.000Z.tar.gz, 4.5 MiB, embedded database.',
    });
  });

  it('warns once it is 24 hours old, and when there is none', () => {
    expect(backupCheck(taken(24), now)).toMatchObject({
      status: 'warning',
      description: expect.stringMatching(/\(24 h ago\).*Older than 24 hours: run npm run backup/),
    });
    expect(backupCheck({ ...taken(24 * 9), kind: 'postgres' }, now).description).toMatch(/\(9 days ago\).*PostgreSQL\./);
    expect(backupCheck(null, now)).toMatchObject({ status: 'warning', description: expect.stringMatching(/^No backup recorded/) });
  });
});
