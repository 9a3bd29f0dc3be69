/**
 * A local S3-protocol server (s3rver) for the S3 attachment store's tests, started by the test
 * itself on a free port of 127.0.0.1, with its data in a temporary directory.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import type { AttachmentStoreConfig } from '../config';

export type LocalS3 = { config: Extract<AttachmentStoreConfig, { kind: 's3' }>; directory: string; close: () => Promise<void> };

export async function startLocalS3(bucket = 'enclave-test'): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-s3-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await s3.run();
  return {
    // s3rver's fixed credentials; the SDK signs every request with them.
    config: {
      kind: 's3',
      bucket,
      region: 'us-east-1',
      endpoint: `http://127.0.0.1:${port}`,
      prefix: 'attachments/',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
    directory,
    close: async () => {
      await s3.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
