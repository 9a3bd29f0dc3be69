/**
 * `npm run migrate`: applies the database migrations of this version and exits without serving
 * (docs/operations.md, Upgrades). On PostgreSQL it may run while instances of the previous
 * version serve: migrations run under an advisory lock (db/client.ts) and only add to the schema
 * (docs/architecture.md §3). The embedded database is opened by one process at a time, so there
 * the server must be stopped; a server applies its migrations at start anyway.
 */
import { parseArgs } from 'node:util';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { readJournal } from '../db/journal';
import { rowsOf } from '../db/rows';
import { operatorAnswers } from '../operator/socket';

async function main(): Promise<void> {
  try {
    parseArgs({ allowPositionals: false, options: {} });
  } catch (err) {
    process.stderr.write(`migrate: ${(err as Error).message}\nusage: npm run migrate   (DATABASE_URL or DATA_DIR as for the server)\n`);
    process.exit(2);
  }
  const config = loadConfig();
  if (!config.databaseUrl && (await operatorAnswers(config.dataDir))) {
    throw new Error(
      `a server is running on ${config.dataDir}: stop it first (the embedded database takes one process at a time; the new version migrates it at its start)`,
    );
  }
  const database = await openDatabase(config);
  try {
    const [applied] = rowsOf(
      await database.db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`),
      z.object({ n: z.number().int() }),
    );
    process.stdout.write(
      `Database up to date: ${applied?.n ?? 0} migrations applied, the last of this version ${readJournal().entries.at(-1)!.tag}.\n`,
    );
  } finally {
    await database.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`migrate failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
