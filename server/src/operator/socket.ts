/**
 * The operator's channel into a running server that holds the embedded database: a Unix socket in
 * the data directory, readable only by the owner. Only one process can open PGlite, so commands
 * such as `keys:generate` ask the server through here while it runs.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import type { Db } from '../db/client';
import { mintKeys } from '../keys/service';

export const generateKeysCommandSchema = z.strictObject({
  count: z.number().int().min(1).max(1000),
  expirationDays: z.number().int().positive().optional(),
  purchaseId: z.string().max(128).optional(),
  salePrice: z.number().nonnegative().optional(),
});
export type GenerateKeysCommand = z.infer<typeof generateKeysCommandSchema>;

export const operatorSocketPath = (dataDir: string) => path.join(dataDir, 'operator.sock');

export async function startOperatorSocket(dataDir: string, db: Db): Promise<http.Server> {
  const file = operatorSocketPath(dataDir);
  fs.rmSync(file, { force: true });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/keys/generate') return answer(404, { error: 'unknown command' });
      let parsed;
      try {
        parsed = generateKeysCommandSchema.safeParse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch {
        return answer(400, { error: 'not JSON' });
      }
      if (!parsed.success) return answer(400, { error: parsed.error.message });
      mintKeys(db, parsed.data).then(
        (keys) => answer(200, { keys }),
        (err: unknown) => answer(500, { error: String(err) }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return server;
}

/** Asks a running server to mint keys; null when no server answers on the socket. */
export async function generateKeysViaSocket(dataDir: string, cmd: GenerateKeysCommand): Promise<string[] | null> {
  const file = operatorSocketPath(dataDir);
  if (!fs.existsSync(file)) return null;
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: file, path: '/keys/generate', method: 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { keys?: string[]; error?: string };
        if (res.statusCode === 200 && body.keys) resolve(body.keys);
        else reject(new Error(body.error ?? `operator socket answered ${res.statusCode}`));
      });
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // A socket file left by a server that is gone.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(null);
      else reject(err);
    });
    req.end(JSON.stringify(cmd));
  });
}
