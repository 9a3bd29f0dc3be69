/**
 * Where attachment ciphertext lives, behind one small interface: files in the data directory by
 * default, an S3-compatible bucket for deployments with several instances (s3-store.ts). Keys are
 * the ids the server made (UUIDs), never anything a client wrote, so no path comes from input.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AttachmentStoreConfig } from '../config';

export type AttachmentStore = {
  /**
   * Stores a blob under a fresh id, whole or not at all, as it streams in: `body` must be exactly
   * `size` bytes (BodyMismatch otherwise), and is never held whole in memory.
   */
  put(id: string, body: Readable | Uint8Array, size: number): Promise<void>;
  /** The blob, or null when there is none. */
  get(id: string): Promise<Buffer | null>;
  /** Deletes these blobs; ids without one are ignored. */
  delete(ids: readonly string[]): Promise<void>;
  close(): Promise<void>;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isAttachmentId = (name: string): boolean => UUID.test(name);

/** The one check between an id and a file name or object key. */
export function checkedId(id: string): string {
  if (!isAttachmentId(id)) throw new Error(`not an attachment id: ${JSON.stringify(id.slice(0, 40))}`);
  return id;
}

/** A body longer or shorter than the size it was declared with. */
export class BodyMismatch extends Error {}

/** `body` as a stream that fails with BodyMismatch unless it is exactly `size` bytes. */
export function exactly(body: Readable | Uint8Array, size: number): Readable {
  let seen = 0;
  const check = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      done(seen > size ? new BodyMismatch(`body longer than its ${size} bytes`) : null, chunk);
    },
    flush(done) {
      done(seen === size ? null : new BodyMismatch(`body of ${seen} bytes, not ${size}`));
    },
  });
  const source = body instanceof Readable ? body : Readable.from([Buffer.from(body.buffer, body.byteOffset, body.byteLength)]);
  // The check fails with the source (a client that hung up) as well as on a wrong length.
  pipeline(source, check).catch(() => undefined);
  return check;
}

/** Where the local store keeps its files; backups and restores read and write the same folder. */
export const localAttachmentsDir = (dataDir: string) => path.join(dataDir, 'attachments');

/** The folder of local attachments this configuration uses, or null when they live in a bucket. */
export const attachmentsDirOf = (config: AttachmentStoreConfig, dataDir: string): string | null =>
  config.kind === 'local' ? localAttachmentsDir(dataDir) : null;

/**
 * Files under `dir`, one per attachment. A write goes to a temporary file in the same directory,
 * is flushed, then renamed into place: a reader sees the whole blob or none, even after a crash.
 */
export function localStore(dir: string): AttachmentStore {
  let ready: Promise<unknown> | null = null;
  const file = (id: string) => path.join(dir, checkedId(id));
  return {
    async put(id, body, size) {
      ready ??= fs.mkdir(dir, { recursive: true, mode: 0o700 });
      await ready;
      const temp = path.join(dir, `.${checkedId(id)}.${randomUUID()}.tmp`);
      try {
        await pipeline(exactly(body, size), createWriteStream(temp, { flags: 'wx', mode: 0o600 }));
        const handle = await fs.open(temp, 'r+');
        try {
          await handle.sync();
        } finally {
          await handle.close();
        }
        await fs.rename(temp, file(id));
      } catch (err) {
        await fs.rm(temp, { force: true });
        throw err;
      }
    },
    async get(id) {
      try {
        return await fs.readFile(file(id));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw err;
      }
    },
    async delete(ids) {
      await Promise.all(ids.map((id) => fs.rm(file(id), { force: true })));
    },
    async close() {},
  };
}

/** The store the configuration names. The S3 client is loaded only when used (it is large). */
export async function openAttachmentStore(config: AttachmentStoreConfig, dataDir: string): Promise<AttachmentStore> {
  if (config.kind === 'local') return localStore(localAttachmentsDir(dataDir));
  const { s3Store } = await import('./s3-store');
  return s3Store(config);
}
