/**
 * Attachments in an S3-compatible bucket (AWS S3, MinIO, Ceph…), for several instances that share
 * no disk. A PUT of a whole object is atomic in S3: readers see it all or not at all.
 */
import { DeleteObjectsCommand, GetObjectCommand, NoSuchKey, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { AttachmentStoreConfig } from '../config';
import { BodyMismatch, checkedId, exactly, type AttachmentStore } from './blobs';

/** S3's own ceiling on the keys of one DeleteObjects call. */
const DELETE_BATCH = 1000;

export function s3Store(config: Extract<AttachmentStoreConfig, { kind: 's3' }>): AttachmentStore {
  const client = new S3Client({
    region: config.region,
    ...(config.endpoint ? { endpoint: config.endpoint, forcePathStyle: true } : {}),
    ...(config.credentials ? { credentials: config.credentials } : {}),
    // A streamed PUT is sent as it is, with its Content-Length, rather than in the aws-chunked
    // encoding of a checksum trailer, which several S3-compatible stores do not understand.
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
  const key = (id: string) => `${config.prefix}${checkedId(id)}`;
  return {
    async put(id, body, size) {
      // Streamed with its known length (no multipart upload needed up to S3's 5 GB): a body that
      // fails or is not `size` bytes aborts the PUT, and S3 keeps no object of it.
      const checked = exactly(body, size);
      // The SDK pipes the body into its request, and a pipe does not pass an error on: abort it.
      const abort = new AbortController();
      checked.once('error', (err) => abort.abort(err));
      try {
        await client.send(
          new PutObjectCommand({
            Bucket: config.bucket,
            Key: key(id),
            Body: checked,
            ContentLength: size,
            ContentType: 'application/octet-stream',
          }),
          {
            abortSignal: abort.signal,
          },
        );
      } catch (err) {
        throw checked.errored instanceof BodyMismatch ? checked.errored : err;
      }
    },
    async get(id) {
      try {
        const answer = await client.send(new GetObjectCommand({ Bucket: config.bucket, Key: key(id) }));
        return answer.Body ? Buffer.from(await answer.Body.transformToByteArray()) : null;
      } catch (err) {
        if (err instanceof NoSuchKey || (err as { name?: string }).name === 'NoSuchKey') return null;
        throw err;
      }
    },
    async delete(ids) {
      for (let i = 0; i < ids.length; i += DELETE_BATCH) {
        const batch = ids.slice(i, i + DELETE_BATCH).map((id) => ({ Key: key(id) }));
        await client.send(new DeleteObjectsCommand({ Bucket: config.bucket, Delete: { Objects: batch, Quiet: true } }));
      }
    },
    async close() {
      client.destroy();
    },
  };
}
