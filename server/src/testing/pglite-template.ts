/**
 * The embedded databases of the integration suite begin as copies of one migrated database, made
 * once per machine and shared by every test process, as the e2e suite's servers do
 * (e2e/support/data-dir.ts): a new PGlite database runs initdb and every migration, 4-5 s of a
 * busy core, where copying one and opening it takes about 0.5 s, and the suite makes one or more
 * per file. The template is named by a hash of the migrations and PGlite's version, so a new
 * migration makes a new one. The migrations still run from an empty database in every run: on
 * each PostgreSQL database of the suite, and on the embedded database of the e2e run's first server
 * (e2e/support/global-setup.ts); every copy is opened through `openDatabase`, whose migrator finds
 * nothing left to do.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../db/client';
import { migrationsFolder } from '../paths';

/** What the template depends on: every migration file and the PGlite build that wrote it. */
function templateKey(): string {
  const hash = createHash('sha256');
  // The package's entry lives in its dist/ folder, beside its package.json (which its exports do not name).
  const pglite = path.join(path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite'))), '..', 'package.json');
  hash.update(fs.readFileSync(pglite));
  const files = fs.readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    const full = path.join(migrationsFolder, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The template's data directory, made on first use: built aside, then renamed into place, so a reader never sees half of one. */
async function template(): Promise<string> {
  const final = path.join(os.tmpdir(), `enclave-test-pglite-${templateKey()}`);
  if (fs.existsSync(final)) return final;
  const staging = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-test-pglite-staging-'));
  const database = await openDatabase({ dataDir: staging });
  await database.close();
  try {
    fs.renameSync(staging, final);
  } catch {
    // Another process put its template there first: the same migrations, so it will do.
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return final;
}

/** A new embedded database in a new directory, migrated as `openDatabase` leaves it; `dataDir` is the caller's to remove. */
export async function copiedPglite(opts: { onQuery?: (query: string) => void } = {}): Promise<{ database: Database; dataDir: string }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-test-'));
  fs.cpSync(await template(), dataDir, { recursive: true });
  return { database: await openDatabase({ dataDir, onQuery: opts.onQuery }), dataDir };
}
