/**
 * Drizzle applies a migration only when its journal time is later than the last one a database has
 * applied: a migration generated with an earlier time than a hand-set predecessor (0003's is in
 * the future) would be skipped on every existing database, and only fresh ones would get it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFolder } from '../paths';
import { backends, POSTGRES_ADMIN_URL } from '../testing/harness';
import { openDatabase } from './client';
import { readJournal } from './journal';

describe('the migration journal', () => {
  const journal = readJournal();

  it('orders every migration after the one before it, in time as in number', () => {
    journal.entries.forEach((e, i) => {
      expect(e.idx).toBe(i);
      expect(e.tag.startsWith(String(i).padStart(4, '0') + '_'), e.tag).toBe(true);
      if (i > 0) expect(e.when, `${e.tag} must be later than ${journal.entries[i - 1]!.tag}`).toBeGreaterThan(journal.entries[i - 1]!.when);
    });
  });

  it('has an SQL file and a snapshot for each entry, and nothing else', () => {
    const sql = fs.readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql'));
    expect(sql.sort()).toEqual(journal.entries.map((e) => `${e.tag}.sql`));
    for (const e of journal.entries)
      expect(fs.existsSync(path.join(migrationsFolder, 'meta', `${e.tag.slice(0, 4)}_snapshot.json`)), e.tag).toBe(true);
  });
});

describe.runIf(backends.includes('postgres'))('migrations started by two instances at once', () => {
  const name = `enclave_test_${randomBytes(6).toString('hex')}`;
  const url = Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${name}` }).toString();
  const admin = (query: string) => withClient(POSTGRES_ADMIN_URL, (c) => c.query(query));
  afterAll(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));

  it('run each migration once: the second waits for the first and finds nothing to do', async () => {
    await admin(`CREATE DATABASE ${name}`);
    const opened = await Promise.all([0, 1].map(() => openDatabase({ databaseUrl: url, dataDir: os.tmpdir() })));
    await Promise.all(opened.map((d) => d.close()));

    const { rows } = await withClient(url, (c) => c.query<{ hash: string }>('SELECT hash FROM drizzle.__drizzle_migrations ORDER BY id'));
    const journal = readJournal();
    expect(rows).toHaveLength(journal.entries.length);
    expect(new Set(rows.map((r) => r.hash)).size).toBe(journal.entries.length);
  });

  it('npm run migrate applies them and exits 0 (1 when the database cannot be opened, 2 on a bad argument)', async () => {
    const fresh = `${name}_cli`;
    await admin(`CREATE DATABASE ${fresh}`);
    try {
      const freshUrl = Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${fresh}` }).toString();
      const last = readJournal().entries.at(-1)!;
      expect(await migrate([], freshUrl)).toMatchObject({ code: 0, stdout: expect.stringContaining(last.tag) });
      const { rows } = await withClient(freshUrl, (c) => c.query('SELECT 1 FROM drizzle.__drizzle_migrations'));
      expect(rows).toHaveLength(last.idx + 1);
      expect(await migrate([], freshUrl)).toMatchObject({ code: 0 });
      expect(await migrate(['--serve'], freshUrl)).toMatchObject({ code: 2, stderr: expect.stringContaining('--serve') });
      const missing = Object.assign(new URL(POSTGRES_ADMIN_URL), { pathname: `/${name}_missing` }).toString();
      expect(await migrate([], missing)).toMatchObject({ code: 1, stderr: expect.stringContaining('migrate failed') });
    } finally {
      await admin(`DROP DATABASE IF EXISTS ${fresh} WITH (FORCE)`);
    }
  });
});

/** Runs src/cli/migrate.ts as `npm run migrate` runs its build. */
function migrate(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, DATABASE_URL: databaseUrl, DATA_DIR: os.tmpdir(), NODE_ENV: 'test' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/cli/migrate.ts', ...args],
      { cwd: path.resolve(import.meta.dirname, '../..'), env },
      (err, stdout, stderr) => resolve({ code: err ? Number(err.code) : 0, stdout, stderr }),
    );
  });
}

async function withClient<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
