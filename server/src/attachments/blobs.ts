/**
 * What every attachment store shares (store.ts for files, s3-store.ts for a bucket): the
 * interface, the one check between an id and a file name or object key, and the body that must be
 * exactly its declared size.
 */
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
