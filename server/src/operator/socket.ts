/**
 * The operator's channel into a running server that holds the embedded database: a Unix socket in
 * the data directory, readable only by the owner. Only one process can open PGlite, so commands
 * such as `keys:generate` and `backup` ask the server through here while it runs, and `restore`
 * refuses to run while anything answers here.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { backupEmbedded, type BackupResult } from '../backup/backup';
import type { Db } from '../db/client';
import { mintKeys } from '../keys/service';

export const generateKeysCommandSchema = z.strictObject({
  count: z.number().int().min(1).max(1000),
  expirationDays: z.number().int().positive().optional(),
  purchaseId: z.string().max(128).optional(),
  salePrice: z.number().nonnegative().optional(),
});
export type GenerateKeysCommand = z.infer<typeof generateKeysCommandSchema>;

/** Where the server writes the archive: an absolute path the `backup` command chose. */
export const backupCommandSchema = z.strictObject({ file: z.string().refine((f) => path.isAbsolute(f), 'must be an absolute path') });
export type BackupCommand = z.infer<typeof backupCommandSchema>;

/** A command: its JSON body parsed by `schema`, then run; a refusal of the body is its message. */
const command =
  <S extends z.ZodType>(schema: S, run: (db: Db, cmd: z.output<S>) => Promise<unknown>) =>
  (db: Db, body: unknown): { result: Promise<unknown> } | { refused: string } => {
    const parsed = schema.safeParse(body);
    return parsed.success ? { result: run(db, parsed.data) } : { refused: parsed.error.message };
  };

/** The commands the socket serves, by path (always POST); `attachmentsDir` as in backupEmbedded. */
const commandsOf = (attachmentsDir: string | null): Record<string, ReturnType<typeof command>> => ({
  '/keys/generate': command(generateKeysCommandSchema, async (db, cmd) => ({ keys: await mintKeys(db, cmd) })),
  '/backup': command(backupCommandSchema, (db, cmd) => backupEmbedded(db, cmd.file, attachmentsDir)),
});

export const operatorSocketPath = (dataDir: string) => path.join(dataDir, 'operator.sock');

/** `attachmentsDir`: the server's local attachments, which its backups carry (null: in a bucket). */
export async function startOperatorSocket(dataDir: string, db: Db, attachmentsDir: string | null): Promise<http.Server> {
  const commands = commandsOf(attachmentsDir);
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
      const handle = req.method === 'POST' && req.url && Object.hasOwn(commands, req.url) ? commands[req.url] : undefined;
      if (!handle) return answer(404, { error: 'unknown command' });
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return answer(400, { error: 'not JSON' });
      }
      const handled = handle(db, body);
      if ('refused' in handled) return answer(400, { error: handled.refused });
      handled.result.then(
        (result) => answer(200, result),
        (err: unknown) => answer(500, { error: err instanceof Error ? err.message : String(err) }),
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
  const body = await ask<{ keys: string[] }>(dataDir, '/keys/generate', cmd);
  return body ? body.keys : null;
}

/** Asks a running server to dump its database to `cmd.file`; null when no server answers on the socket. */
export function backupViaSocket(dataDir: string, cmd: BackupCommand): Promise<BackupResult | null> {
  return ask<BackupResult>(dataDir, '/backup', cmd);
}

/** Whether a server answers on the data directory's operator socket (any answer counts). */
export async function operatorAnswers(dataDir: string): Promise<boolean> {
  try {
    return (await ask(dataDir, '/', {})) !== null;
  } catch {
    return true;
  }
}

/** POSTs a command: the answer's body, null when no server answers, an error for a refusal. */
function ask<T>(dataDir: string, command: string, cmd: unknown): Promise<T | null> {
  const file = operatorSocketPath(dataDir);
  if (!fs.existsSync(file)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: file, path: command, method: 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T & { error?: string };
        if (res.statusCode === 200) resolve(body);
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
