/**
 * `keys:generate` as an operator runs it: a process of its own, its standard output read as the
 * keys (scripts pipe it) and its exit code as documented in docs/operations.md §7.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { inviteKeySchema } from '@enclave/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/client';
import { findKey } from '../keys/service';
import { backends, makeDatabase } from '../testing/harness';

const command = fileURLToPath(new URL('./generate-keys.ts', import.meta.url));

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the command from its sources (tsx) with only `env` and PATH. */
function generateKeys(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', command, ...args],
      { env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

describe('keys:generate arguments', () => {
  // Refused before any database is opened: DATA_DIR points at nothing that could be one.
  const env = { DATA_DIR: path.join(os.tmpdir(), 'enclave-keys-never-opened') };

  it.each([
    [['--count', '3', '--bogus'], /Unknown option '--bogus'/],
    [['--count', '3', 'extra'], /positional argument/],
    [['--count'], /argument missing/],
    [['--count', '0'], /count/],
    [['--count', 'ten'], /count/],
    [['--count', '2', '--price=-5'], /salePrice/],
    [['--count', '2', '--price', '-5'], /argument is ambiguous/],
  ])('refuses %j with exit code 2, a reason and the usage on standard error, nothing on standard output', async (args, reason) => {
    const run = await generateKeys(args, env);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(reason);
    expect(run.stderr).toMatch(/^usage: npm run keys:generate -- --count N/m);
    expect(fs.existsSync(env.DATA_DIR)).toBe(false);
  });
});

describe.each(backends)('keys:generate output (%s)', (backend) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('prints the new keys, one per line, and nothing else; each is in the database', async () => {
    let env: Record<string, string>;
    let open: () => ReturnType<typeof openDatabase>;
    if (backend === 'postgres') {
      const made = await makeDatabase('postgres');
      cleanups.push(made.drop, () => made.database.close());
      env = { DATABASE_URL: made.url! };
      open = async () => made.database;
    } else {
      // No server runs on this folder: the command opens the embedded database itself.
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-keys-'));
      cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
      env = { DATA_DIR: dataDir };
      open = async () => {
        const database = await openDatabase({ dataDir });
        cleanups.push(() => database.close());
        return database;
      };
    }

    const run = await generateKeys(['--count', '3', '--purchase-id', 'BATCH-7'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const keys = run.stdout.trimEnd().split('\n');
    expect(keys).toHaveLength(3);
    for (const key of keys) expect(inviteKeySchema.safeParse(key).success).toBe(true);

    const { db } = await open();
    for (const key of keys) expect(await findKey(db, key)).toMatchObject({ purchaseId: 'BATCH-7' });
  });
});
