/**
 * Deleted means gone (docs/security.md §4): messages deleted for everyone and messages that
 * expired, in the channel and in a DM, with attachments, leave no byte of their ciphertext in any
 * file of the data directory (the embedded database's tables and write-ahead log, the attachment
 * files) within the scrub delay, nor in a backup taken after, while a message that was kept is
 * still found in both (so the search really reads them).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { routes, type Message } from '@enclave/protocol';
import { eq, inArray, sql } from 'drizzle-orm';
import * as tar from 'tar-stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttachmentStore } from '../attachments/blobs';
import { localAttachmentsDir, localStore } from '../attachments/store';
import { deleteMessageAttachments, sweepOrphans } from '../attachments/service';
import { backupEmbedded, backupPostgres } from '../backup/backup';
import { mintKeys } from '../keys/service';
import { sweepExpired } from '../messages/disappearing';
import { uploadFile } from '../testing/attachments';
import { backends, makeDatabase, relaxedRateLimits, startServer, type Backend, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { openDatabase, type Database } from './client';
import { attachments, epochShares, messages, users } from './schema';

/** The scrub delay of the server under test: erased bytes must be gone from its files this soon after. */
const SCRUB_MS = 500;
/** Its disappearing timers are capped at this. */
const CAP_MS = 300;

/** The names of the files under `dir` whose bytes contain `needle`. */
function filesHolding(dir: string, needle: Buffer): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (entry.isFile() && fs.readFileSync(p).includes(needle)) found.push(path.relative(dir, p));
    }
  };
  walk(dir);
  return found;
}

/** Every entry of an embedded backup (a tar), the database's gzipped dump inflated. */
async function archiveContents(file: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  const extract = tar.extract();
  const reading = pipeline(fs.createReadStream(file), extract);
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    parts.push(body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body);
  }
  await reading;
  return Buffer.concat(parts);
}

describe.each(backends)('erased messages leave the files (%s)', (backend: Backend) => {
  let dataDir: string;
  let database: Database;
  let databaseUrl: string | undefined;
  let drop: () => Promise<void>;
  let server: TestServer;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-erasure-'));
    if (backend === 'pglite') {
      database = await openDatabase({ dataDir });
      drop = async () => undefined;
    } else {
      ({ database, url: databaseUrl, drop } = await makeDatabase('postgres'));
    }
    server = await startServer(database, {
      config: { dataDir, rateLimits: relaxedRateLimits, disappearingCapMs: CAP_MS, erasureScrubMs: SCRUB_MS },
    });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('deletes and expires messages with attachments: none of their bytes in the data directory or a later backup', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const alice = await TestMember.join(server.url, k1!, 'alice');
    const bob = await TestMember.join(server.url, k2!, 'bob');
    const file = (name: string) => ({ bytes: new TextEncoder().encode(`${name} ${crypto.randomUUID()}`), name, type: 'text/plain' });
    const send = async (member: TestMember, to: string, content: Parameters<TestMember['send']>[1]): Promise<Message> => {
      const res = await member.send(to, content);
      expect(res.status).toBe(201);
      return res.body!.message;
    };

    const kept = await send(alice, 'all', 'this one stays');
    const channelDeleted = await send(alice, 'all', 'deleted in the channel');
    const dmUpload = await uploadFile(alice, bob.id, file('dm.txt'));
    const dmDeleted = await send(alice, bob.id, { text: 'deleted in a DM', attachment: dmUpload.attachment });
    const channelUpload = await uploadFile(bob, 'all', file('channel.txt'));
    await bob.call(routes.setDisappearing, { body: { receiverId: alice.id, seconds: 3600 } });
    const expiredUpload = await uploadFile(bob, alice.id, file('expires.txt'));
    const dmExpired = await send(bob, alice.id, { text: 'expires in a DM', attachment: expiredUpload.attachment });
    const channelWithFile = await send(bob, 'all', { text: 'a file in the channel, deleted', attachment: channelUpload.attachment });

    const erased = [channelDeleted, dmDeleted, dmExpired, channelWithFile];
    const needles = [
      ...erased.map((m) => ({ what: `message ${m.id}`, bytes: Buffer.from(m.encryptedContent) })),
      ...[dmUpload, channelUpload, expiredUpload].map((u) => ({ what: `attachment ${u.attachment.id}`, bytes: Buffer.from(u.ciphertext) })),
    ];
    const keptBytes = Buffer.from(kept.encryptedContent);
    // The search finds what is there: before the erasure, every secret is in some file.
    if (backend === 'pglite') await database.db.execute(sql.raw('CHECKPOINT'));
    for (const n of needles) {
      const where = n.what.startsWith('attachment') || backend === 'pglite' ? filesHolding(dataDir, n.bytes) : ['(in PostgreSQL)'];
      expect(where, n.what).not.toEqual([]);
    }

    for (const [member, m] of [
      [alice, channelDeleted],
      [alice, dmDeleted],
      [bob, channelWithFile],
    ] as const) {
      expect((await member.attempt(routes.deleteMessage, { params: { id: m.id } })).status).toBe(200);
    }
    // Expired (by the database's clock) once out of the history.
    await expect
      .poll(async () => (await alice.history(bob.id)).map((m) => m.id), { timeout: 10_000, interval: 50 })
      .not.toContain(dmExpired.id);
    // The server's own sweep (every EXPIRY_SWEEP_MS) may have taken it first: erased by one of them either way.
    expect(
      await sweepExpired({
        db: database.db,
        gateway: server.app.gateway,
        attachments: server.app.attachments,
        scrubber: server.app.scrubber,
      }),
    ).toBeLessThanOrEqual(1);
    const rows = await database.db
      .select({ content: messages.encryptedContent })
      .from(messages)
      .where(
        inArray(
          messages.id,
          erased.map((m) => m.id),
        ),
      );
    expect(rows.map((r) => r.content)).toEqual([null, null, null, null]);

    // The server's own scrub, SCRUB_MS after the erasures, takes them out of every file.
    const leftovers = () => needles.flatMap((n) => filesHolding(dataDir, n.bytes).map((f) => `${n.what} in ${f}`));
    await expect.poll(leftovers, { timeout: 15_000, interval: 200 }).toEqual([]);
    if (backend === 'pglite') expect(filesHolding(dataDir, keptBytes)).not.toEqual([]);

    // A backup taken now holds the kept message and none of the erased ones.
    const archive = path.join(dataDir, 'backups', backend === 'pglite' ? 'after.tar' : 'after.dump');
    fs.mkdirSync(path.dirname(archive), { recursive: true });
    let contents: Buffer;
    if (backend === 'pglite') {
      await backupEmbedded(database.db, archive, localAttachmentsDir(dataDir));
      contents = await archiveContents(archive);
    } else {
      await backupPostgres(database.db, databaseUrl!, archive);
      contents = execFileSync('pg_restore', ['--file=-', archive], { maxBuffer: 256 * 1024 * 1024 });
    }
    expect(contents.includes(keptBytes)).toBe(true);
    for (const n of needles) expect(contents.includes(n.bytes), n.what).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it("takes a wiped member's sealed key bundle and shares out of the files", async () => {
    const wiping = await startServer(database, {
      config: { dataDir, rateLimits: relaxedRateLimits, breachPolicy: 'wipe', erasureScrubMs: SCRUB_MS },
    });
    try {
      const [k1, k2] = await mintKeys(database.db, { count: 2 });
      const carol = await TestMember.join(wiping.url, k1!, 'carol-wiped');
      const dave = await TestMember.join(wiping.url, k2!, 'dave-wiped');
      // Dave's first message wraps a share of his epoch for Carol.
      expect((await dave.send(carol.id, 'for carol')).status).toBe(201);
      const [user] = await database.db.select({ bundle: users.encryptedPrivateKey }).from(users).where(eq(users.id, carol.id));
      const shares = await database.db
        .select({ key: epochShares.wrappedKey })
        .from(epochShares)
        .where(eq(epochShares.recipientId, carol.id));
      expect(shares.length).toBeGreaterThan(0);
      const secrets = [user!.bundle, ...shares.map((r) => r.key)].map((text) => Buffer.from(text));

      const report = {
        reason: 'function integrity violation',
        timestamp: new Date().toISOString(),
        threatVectors: [],
        securityMetrics: { threatLevel: 90, detections: 1 },
      };
      expect(await carol.call(routes.breachReport, { body: report })).toMatchObject({ action: 'wiped' });
      const leftovers = () => secrets.flatMap((bytes, i) => filesHolding(dataDir, bytes).map((f) => `secret ${i} in ${f}`));
      if (backend === 'pglite') await expect.poll(leftovers, { timeout: 15_000, interval: 200 }).toEqual([]);
      else expect(leftovers()).toEqual([]);
    } finally {
      await wiping.close();
    }
  });

  it('deletes the blobs before the rows, so that a store that fails keeps the row for the sweep to retry', async () => {
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    const alice = await TestMember.join(server.url, k1!, 'alice-retry');
    const bob = await TestMember.join(server.url, k2!, 'bob-retry');
    const upload = await uploadFile(alice, bob.id, file());
    const message = (await alice.send(bob.id, { text: 'with a file', attachment: upload.attachment })).body!.message;
    await database.db.update(messages).set({ encryptedContent: null }).where(eq(messages.id, message.id));

    const store = localStore(localAttachmentsDir(dataDir));
    const failing: AttachmentStore = { ...store, delete: () => Promise.reject(new Error('the bucket does not answer')) };
    await expect(deleteMessageAttachments(database.db, failing, [message.id])).rejects.toThrow('the bucket does not answer');
    const row = async () => (await database.db.select().from(attachments).where(eq(attachments.id, upload.attachment.id)))[0];
    expect(await row()).toBeDefined();
    expect(await store.get(upload.attachment.id)).not.toBeNull();
    // Erased: nobody may fetch it meanwhile.
    expect((await bob.request('GET', `/api/attachments/${upload.attachment.id}`)).status).toBe(404);

    // The next sweep, with the store back, finds it by its erased message.
    expect(await sweepOrphans(database.db, store, 60 * 60 * 1000)).toBeGreaterThanOrEqual(1);
    expect(await row()).toBeUndefined();
    expect(await store.get(upload.attachment.id)).toBeNull();

    function file() {
      return { bytes: new TextEncoder().encode(`retry ${crypto.randomUUID()}`), name: 'r.txt', type: 'text/plain' };
    }
  });
});
