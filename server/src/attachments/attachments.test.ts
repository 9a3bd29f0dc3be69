/**
 * Encrypted attachments through a real server: a file encrypted in "the browser", stored as
 * ciphertext in the data directory, linked to its message, downloaded and opened by the members
 * of its conversation only; sizes, quotas, rates, link rules, deletion and the orphan sweep.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { errorCodes, errorTexts, limits, routes, routeUrl } from '@enclave/protocol';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { attachments, messages } from '../db/schema';
import { mintKeys } from '../keys/service';
import { downloadBytes, openFile, uploadBytes, uploadFile } from '../testing/attachments';
import { backends, creatorHeaders, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { sweepExpired } from '../messages/disappearing';
import { deleteMessageAttachments, sweepOrphans } from './service';

const MARKER = `marker-${crypto.randomUUID()}`;
const file = (name = 'note.txt', body = `a file holding ${MARKER}`) => ({
  bytes: new TextEncoder().encode(body),
  name,
  type: 'text/plain',
});

describe.each(backends)('encrypted attachments (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  let dataDir: string;
  const blobPath = (id: string) => path.join(dataDir, 'attachments', id);

  const join = async (name: string, on = server) => {
    const [key] = await mintKeys(database.db, { count: 1 });
    return TestMember.join(on.url, key!, name);
  };

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-attachments-'));
    server = await startServer(database, { config: { dataDir, rateLimits: relaxedRateLimits } });
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
    await drop?.();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('carries a file from Alice to Bob in a DM: ciphertext on disk and on the wire, the plaintext only in their hands', async () => {
    const [alice, bob] = [await join('alice-dm'), await join('bob-dm')];
    const { attachment, ciphertext } = await uploadFile(alice, bob.id, file('report.txt'));
    const stored = fs.readFileSync(blobPath(attachment.id));
    expect(Buffer.compare(stored, Buffer.from(ciphertext))).toBe(0);
    expect(stored.includes(MARKER)).toBe(false);

    const sent = await alice.send(bob.id, { text: 'the report', attachment });
    expect(sent.status).toBe(201);
    const [read] = await bob.decrypt(await bob.history(alice.id));
    expect(read).toMatchObject({ text: 'the report', attachment });
    expect(new TextDecoder().decode(await openFile(bob, read!.attachment!))).toBe(`a file holding ${MARKER}`);

    const download = await downloadBytes(bob, attachment.id);
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(download.headers.get('cache-control')).toMatch(/^private/);
    // Nothing the server holds or logs names the file or its contents.
    expect(JSON.stringify(await database.db.select().from(attachments))).not.toContain('report.txt');
    expect(JSON.stringify(await database.db.select().from(messages))).not.toContain(MARKER);
    expect(server.logs.join('\n')).not.toContain(MARKER);
    expect([...alice.wire, ...bob.wire].join('\n')).not.toContain(MARKER);
  });

  it('lets only the members of the conversation download it, and nobody but the uploader before it is sent', async () => {
    const [alice, bob, eve] = [await join('alice-acl'), await join('bob-acl'), await join('eve-acl')];
    const { attachment } = await uploadFile(alice, bob.id, file());
    expect((await downloadBytes(alice, attachment.id)).status).toBe(200);
    expect((await downloadBytes(bob, attachment.id)).status).toBe(404);
    await alice.send(bob.id, { text: '', attachment });
    expect((await downloadBytes(bob, attachment.id)).status).toBe(200);
    const refused = await downloadBytes(eve, attachment.id);
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: 'No such attachment', code: errorCodes.notFound });
    expect((await downloadBytes(eve, crypto.randomUUID())).status).toBe(404);
    const anonymous = await fetch(`${server.url}${routeUrl(routes.downloadAttachment, { params: { id: attachment.id } })}`);
    expect(anonymous.status).toBe(401);
  });

  it('serves a channel attachment to members, but not to one who joined after it was sent', async () => {
    const alice = await join('alice-channel');
    const { attachment } = await uploadFile(alice, 'all', file());
    await alice.send('all', { text: 'for everyone', attachment });
    const late = await join('late-channel');
    expect((await downloadBytes(late, attachment.id)).status).toBe(404);
  });

  it('refuses a banned member, and uploads to a banned member or to oneself', async () => {
    const [alice, bob] = [await join('alice-ban'), await join('bob-ban')];
    const { attachment } = await uploadFile(alice, bob.id, file());
    await alice.send(bob.id, { text: 'x', attachment });
    await new TestMember.Anonymous(server.url).call(routes.creatorBan, { body: { userId: bob.id, reason: 'test' } }, creatorHeaders);
    expect((await downloadBytes(bob, attachment.id)).status).toBe(401);
    const toBanned = await uploadBytes(alice, bob.id, new Uint8Array(32));
    expect(toBanned.status).toBe(403);
    expect((await uploadBytes(alice, alice.id, new Uint8Array(32))).status).toBe(400);
  });

  it('refuses a body over the limit with a clear 413, a wrong content type and a body shorter than a tag', async () => {
    const alice = await join('alice-size');
    const tooBig = await uploadBytes(alice, 'all', new Uint8Array(limits.attachmentCiphertextMaxBytes + 1));
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ error: errorTexts.attachmentTooLarge, code: errorCodes.tooLarge });
    const exact = await uploadBytes(alice, 'all', new Uint8Array(limits.attachmentCiphertextMaxBytes));
    expect(exact.status).toBe(201);
    expect((await uploadBytes(alice, 'all', new TextEncoder().encode('{"a":1}'), 'application/json')).status).toBe(415);
    expect((await uploadBytes(alice, 'all', new Uint8Array(15))).status).toBe(400);
  });

  it('links an upload only to its uploader’s next message in its own conversation, once', async () => {
    const [alice, bob, carol] = [await join('alice-link'), await join('bob-link'), await join('carol-link')];
    const { attachment } = await uploadFile(alice, bob.id, file());
    const countBefore = (await alice.history(bob.id)).length;
    // Bob cannot claim Alice's upload; Alice cannot move it to another conversation.
    expect((await bob.send(alice.id, { text: 'mine?', attachment })).status).toBe(400);
    const moved = await alice.send(carol.id, { text: 'elsewhere', attachment });
    expect(moved.status).toBe(400);
    expect(moved.error?.error).toMatch(/attachmentIds/);
    expect((await alice.send(bob.id, { text: 'unknown', attachment: { ...attachment, id: crypto.randomUUID() } })).status).toBe(400);
    // Refused messages were not stored.
    expect((await alice.history(bob.id)).length).toBe(countBefore);
    expect((await alice.send(bob.id, { text: 'here', attachment })).status).toBe(201);
    expect((await alice.send(bob.id, { text: 'again', attachment })).status).toBe(400);
  });

  it('links an upload only within half an hour, so that the sweep deleting an older one never races a send', async () => {
    const [alice, bob] = [await join('alice-window'), await join('bob-window')];
    const stale = (await uploadFile(alice, bob.id, file())).attachment;
    await database.db
      .update(attachments)
      .set({ createdAt: sql`now() - interval '31 minutes'` })
      .where(eq(attachments.id, stale.id));
    const refused = await alice.send(bob.id, { text: 'too late', attachment: stale });
    expect(refused.status).toBe(400);
    expect(refused.error?.error).toMatch(/attachmentIds/);
    const fresh = (await uploadFile(alice, bob.id, file())).attachment;
    expect((await alice.send(bob.id, { text: 'in time', attachment: fresh })).status).toBe(201);
  });

  it('sweeps uploads no message linked after the hour, with their blobs, and keeps linked ones', async () => {
    const [alice, bob] = [await join('alice-sweep'), await join('bob-sweep')];
    const orphan = (await uploadFile(alice, bob.id, file())).attachment;
    const kept = (await uploadFile(alice, bob.id, file())).attachment;
    await alice.send(bob.id, { text: 'kept', attachment: kept });
    expect(await sweepOrphans(database.db, server.app.attachments, 60 * 60 * 1000)).toBe(0);
    const later = new Date(Date.now() + 61 * 60 * 1000);
    expect(await sweepOrphans(database.db, server.app.attachments, 60 * 60 * 1000, later)).toBeGreaterThanOrEqual(1);
    expect(fs.existsSync(blobPath(orphan.id))).toBe(false);
    expect(await database.db.select().from(attachments).where(eq(attachments.id, orphan.id))).toEqual([]);
    expect(fs.existsSync(blobPath(kept.id))).toBe(true);
    expect((await downloadBytes(bob, kept.id)).status).toBe(200);
  });

  it('deletes a message’s attachments with it, and sweeps those of a message row deleted without it', async () => {
    const [alice, bob] = [await join('alice-delete'), await join('bob-delete')];
    const first = (await uploadFile(alice, bob.id, file())).attachment;
    const second = (await uploadFile(alice, bob.id, file())).attachment;
    const m1 = (await alice.send(bob.id, { text: '1', attachment: first })).body!.message;
    const m2 = (await alice.send(bob.id, { text: '2', attachment: second })).body!.message;
    expect(await deleteMessageAttachments(database.db, server.app.attachments, [m1.id])).toBe(1);
    expect(fs.existsSync(blobPath(first.id))).toBe(false);
    expect((await downloadBytes(bob, first.id)).status).toBe(404);
    // A message row deleted directly leaves its attachment unlinked: the next sweep takes it.
    await database.db.delete(messages).where(eq(messages.id, m2.id));
    expect((await downloadBytes(bob, second.id)).status).toBe(404);
    await sweepOrphans(database.db, server.app.attachments, 60 * 60 * 1000, new Date(Date.now() + 61 * 60 * 1000));
    expect(fs.existsSync(blobPath(second.id))).toBe(false);
  });

  it('takes an attachment with its message when the sender deletes it for everyone or it expires', async () => {
    const [alice, bob] = [await join('alice-erase'), await join('bob-erase')];
    const deleted = (await uploadFile(alice, bob.id, file())).attachment;
    const expired = (await uploadFile(alice, bob.id, file())).attachment;
    const m1 = (await alice.send(bob.id, { text: '1', attachment: deleted })).body!.message;
    const m2 = (await alice.send(bob.id, { text: '2', attachment: expired })).body!.message;
    expect((await alice.attempt(routes.deleteMessage, { params: { id: m1.id } })).status).toBe(200);
    expect(fs.existsSync(blobPath(deleted.id))).toBe(false);
    expect((await downloadBytes(bob, deleted.id)).status).toBe(404);
    // Past its time (as a timer would have set it): the expiry sweep erases it, and its file.
    await database.db
      .update(messages)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(messages.id, m2.id));
    await sweepExpired({
      db: database.db,
      gateway: server.app.gateway,
      attachments: server.app.attachments,
      scrubber: server.app.scrubber,
    });
    expect(fs.existsSync(blobPath(expired.id))).toBe(false);
    expect(await database.db.select().from(attachments).where(eq(attachments.id, expired.id))).toEqual([]);
  });

  describe('quota and rate', () => {
    let tight: TestServer;
    beforeAll(async () => {
      tight = await startServer(database, {
        config: {
          dataDir,
          rateLimits: { ...relaxedRateLimits, attachmentUpload: { max: 4, windowMs: 60_000 } },
          attachments: { store: { kind: 'local' }, quotaBytes: 1024 * 1024, orphanAfterMs: 60 * 60 * 1000, sweepEveryMs: 10 * 60 * 1000 },
        },
      });
    });
    afterAll(async () => tight?.close());

    it('refuses an upload past the member’s quota with 413 and says how full it is, then 429 past the rate', async () => {
      const alice = await join('alice-quota', tight);
      expect((await uploadBytes(alice, 'all', new Uint8Array(700 * 1024))).status).toBe(201);
      const full = await uploadBytes(alice, 'all', new Uint8Array(700 * 1024));
      expect(full.status).toBe(413);
      expect(full.body).toMatchObject({
        code: errorCodes.quotaExceeded,
        error: expect.stringMatching(/Attachment storage full: you have 0 MB stored of your 1 MB/),
      });
      // Another member's quota is their own.
      const bob = await join('bob-quota', tight);
      expect((await uploadBytes(bob, 'all', new Uint8Array(700 * 1024))).status).toBe(201);
      expect((await uploadBytes(alice, 'all', new Uint8Array(100))).status).toBe(201);
      const limited = await uploadBytes(alice, 'all', new Uint8Array(100));
      expect(limited.status).toBe(201);
      expect((await uploadBytes(alice, 'all', new Uint8Array(100))).status).toBe(429);
    });
  });
});
