/**
 * The two attachment stores keep the same promises: a blob whole or not at all under its id, null
 * for an id without one, deletion that ignores what is not there; no path or key from anything
 * but an id. The S3 store runs against s3rver, and a server configured with it carries a file.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { mintKeys } from '../keys/service';
import { uploadFile, openFile } from '../testing/attachments';
import { makeDatabase, relaxedRateLimits, startServer } from '../testing/harness';
import { TestMember } from '../testing/member';
import { startLocalS3, type LocalS3 } from '../testing/s3';
import { s3Store } from './s3-store';
import { BodyMismatch, type AttachmentStore } from './blobs';
import { localStore } from './store';

let s3: LocalS3;
let dir: string;
beforeAll(async () => {
  s3 = await startLocalS3();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-store-'));
});
afterAll(async () => {
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe.each(['local', 's3'] as const)('the %s attachment store', (kind) => {
  let store: AttachmentStore;
  beforeAll(() => {
    store = kind === 'local' ? localStore(path.join(dir, 'attachments')) : s3Store(s3.config);
  });
  afterAll(async () => store?.close());

  it('stores, reads and deletes blobs by id', async () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    await store.put(a, bytes, bytes.length);
    await store.put(b, new Uint8Array(16), 16);
    expect(Buffer.compare((await store.get(a))!, Buffer.from(bytes))).toBe(0);
    await store.delete([a, crypto.randomUUID()]);
    expect(await store.get(a)).toBeNull();
    expect((await store.get(b))?.length).toBe(16);
    await store.delete([b]);
  });

  it('answers null for an id it never stored, and refuses anything but an id as a name', async () => {
    expect(await store.get(crypto.randomUUID())).toBeNull();
    for (const bad of ['../../etc/passwd', 'a/b', '', `${crypto.randomUUID()}/..`]) {
      await expect(store.put(bad, new Uint8Array(16), 16)).rejects.toThrow(/not an attachment id/);
      await expect(store.get(bad)).rejects.toThrow(/not an attachment id/);
    }
  });

  it('keeps nothing of a body shorter or longer than the size it was declared with', async () => {
    for (const [sent, size] of [
      [16, 32],
      [48, 32],
    ] as const) {
      const id = crypto.randomUUID();
      await expect(store.put(id, Readable.from([Buffer.alloc(sent, 7)]), size)).rejects.toBeInstanceOf(BodyMismatch);
      // S3 keeps no object of a PUT cut short; s3rver writes objects in place as they arrive, so
      // only the refusal is looked at there.
      if (kind === 'local') expect(await store.get(id)).toBeNull();
    }
    if (kind === 'local') expect(fs.readdirSync(path.join(dir, 'attachments')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it.runIf(kind === 'local')('leaves no temporary file behind, and the blob only readable by the server', async () => {
    const id = crypto.randomUUID();
    await store.put(id, new Uint8Array(64), 64);
    const names = fs.readdirSync(path.join(dir, 'attachments'));
    expect(names.filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(fs.statSync(path.join(dir, 'attachments', id)).mode & 0o077).toBe(0);
  });
});

describe('a server whose attachments go to S3', () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ database, drop } = await makeDatabase('pglite'));
  });
  afterAll(async () => {
    await database?.close();
    await drop?.();
  });

  it('carries a file from Alice to Bob with the ciphertext in the bucket, nothing on local disk', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-s3-data-'));
    const server = await startServer(database, {
      config: {
        dataDir,
        rateLimits: relaxedRateLimits,
        attachments: { store: s3.config, quotaBytes: 10 * 1024 * 1024 * 1024, orphanAfterMs: 3_600_000, sweepEveryMs: 600_000 },
      },
    });
    try {
      const keys = await mintKeys(database.db, { count: 2 });
      const [alice, bob] = await Promise.all([
        TestMember.join(server.url, keys[0]!, 'alice-s3'),
        TestMember.join(server.url, keys[1]!, 'bob-s3'),
      ]);
      const marker = `s3-marker-${crypto.randomUUID()}`;
      const { attachment, ciphertext } = await uploadFile(alice, bob.id, {
        bytes: new TextEncoder().encode(marker),
        name: 'a.txt',
        type: 'text/plain',
      });
      expect((await alice.send(bob.id, { text: '', attachment })).status).toBe(201);
      const [read] = await bob.decrypt(await bob.history(alice.id));
      expect(new TextDecoder().decode(await openFile(bob, read!.attachment!))).toBe(marker);
      expect(Buffer.compare((await s3Store(s3.config).get(attachment.id))!, Buffer.from(ciphertext))).toBe(0);
      expect(fs.existsSync(path.join(dataDir, 'attachments'))).toBe(false);
    } finally {
      await server.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
