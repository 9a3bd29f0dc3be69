/**
 * The operator's channel into a running instance: a Unix socket in the data directory, created
 * owner-only (0600), which is its authentication: whoever may open it is the account that runs the
 * server, which can read the database and the master key file anyway (docs/security.md §7). Every
 * instance serves one, on the embedded database and on PostgreSQL alike.
 *
 * Only one process can open PGlite, so on the embedded database `keys:generate` and `backup` ask
 * the server through here while it runs, and `restore` refuses to run while anything answers here.
 * The admin commands (operator/admin-commands.ts) always go through a running instance: a ban must
 * reach the sockets of every instance, over this instance's bus.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { z } from 'zod';
import { backupEmbedded, backupResultSchema, type BackupResult } from '../backup/backup';
import type { AppContext } from '../context';
import { HttpError } from '../http/errors';
import { mintKeys } from '../keys/service';
import { adminCommands } from './admin-commands';
import { command, type Command } from './command';

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

/**
 * The commands the socket serves, by path (always POST). `/backup` only on the embedded database
 * (`attachmentsDir` as in backupEmbedded): PostgreSQL is dumped by the command itself, with pg_dump.
 */
const commandsOf = (embedded: boolean, attachmentsDir: string | null): Record<string, Command> => ({
  '/keys/generate': command(generateKeysCommandSchema, async (ctx, cmd) => ({ keys: await mintKeys(ctx.db, cmd) })),
  ...(embedded ? { '/backup': command(backupCommandSchema, (ctx, cmd) => backupEmbedded(ctx.db, cmd.file, attachmentsDir)) } : {}),
  ...adminCommands,
});

export const operatorSocketPath = (dataDir: string) => path.join(dataDir, 'operator.sock');

/**
 * Serves the socket for this instance. `attachmentsDir`: the server's local attachments, which
 * its backups carry (null: in a bucket). Null when another live instance already answers on this
 * data directory (PostgreSQL instances sharing one host and DATA_DIR): that one keeps it, and
 * serves the same commands over the same database.
 */
export async function startOperatorSocket(dataDir: string, ctx: AppContext, attachmentsDir: string | null): Promise<http.Server | null> {
  if (await operatorAnswers(dataDir)) return null;
  const commands = commandsOf(!ctx.config.databaseUrl, attachmentsDir);
  const file = operatorSocketPath(dataDir);
  // A file left by a server that is gone (nothing answered on it).
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
      const handled = handle(ctx, body);
      if ('refused' in handled) return answer(400, { error: handled.refused });
      handled.result.then(
        (result) => answer(200, result),
        // The services' refusals (no such member, ...) keep their status; anything else is a 500.
        (err: unknown) => answer(err instanceof HttpError ? err.status : 500, { error: err instanceof Error ? err.message : String(err) }),
      );
    });
  });
  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.once('listening', resolve);
  });
  // Created owner-only (the bind is synchronous, within this umask), not only chmod-ed after it.
  const umask = process.umask(0o177);
  try {
    server.listen(file);
  } finally {
    process.umask(umask);
  }
  await listening;
  fs.chmodSync(file, 0o600);
  return server;
}

/** Asks a running server to mint keys; null when no server answers on the socket. */
export async function generateKeysViaSocket(dataDir: string, cmd: GenerateKeysCommand): Promise<string[] | null> {
  const body = await askOperator(dataDir, '/keys/generate', cmd, z.object({ keys: z.array(z.string()) }));
  return body ? body.keys : null;
}

/** Asks a running server to dump its database to `cmd.file`; null when no server answers on the socket. */
export function backupViaSocket(dataDir: string, cmd: BackupCommand): Promise<BackupResult | null> {
  return askOperator(dataDir, '/backup', cmd, backupResultSchema);
}

/** Whether a server answers on the data directory's operator socket (any answer counts). */
export async function operatorAnswers(dataDir: string): Promise<boolean> {
  try {
    return (await askOperator(dataDir, '/', {}, z.unknown())) !== null;
  } catch {
    return true;
  }
}

/** A refusal from the server: its status and message (404: no such member, 400: a bad body). */
export class OperatorRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const refusalSchema = z.object({ error: z.string().optional() });

/**
 * POSTs a command: the answer's body parsed by `answer`, null when no server answers, an
 * OperatorRefusal for a refusal.
 */
export function askOperator<S extends z.ZodType>(dataDir: string, command: string, cmd: unknown, answer: S): Promise<z.output<S> | null> {
  const file = operatorSocketPath(dataDir);
  if (!fs.existsSync(file)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath: file, path: command, method: 'POST' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode === 200) resolve(answer.parse(body));
          else
            reject(
              new OperatorRefusal(
                res.statusCode ?? 0,
                refusalSchema.safeParse(body).data?.error ?? `operator socket answered ${res.statusCode}`,
              ),
            );
        } catch (err) {
          reject(err);
        }
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
