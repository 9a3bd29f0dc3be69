/**
 * Where attachment ciphertext lives, behind one small interface (blobs.ts): files in the data directory by
 * default, an S3-compatible bucket for deployments with several instances (s3-store.ts). Keys are
 * the ids the server made (UUIDs), never anything a client wrote, so no path comes from input.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { AttachmentStoreConfig } from '../config';
import { checkedId, exactly, type AttachmentStore } from './blobs';

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
