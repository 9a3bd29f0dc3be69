import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { migrationsFolder } from '../paths';
import * as schema from './schema';

type Schema = typeof schema;
/** One type for both drivers: PGlite and node-postgres speak the same SQL. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
export type Database = { db: Db; close: () => Promise<void> };

/**
 * Opens PostgreSQL when `databaseUrl` is set, else the embedded PGlite in `dataDir/db`, and applies
 * the migrations. Only one process may open an embedded database at a time.
 */
export async function openDatabase(opts: {
  databaseUrl?: string;
  dataDir: string;
  /** Where a connection lost while idle is reported (the pool replaces it on the next query). */
  onPoolError?: (err: Error) => void;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection that PostgreSQL ends (restart, pg_terminate_backend, DROP DATABASE ...
    // WITH (FORCE)) is an 'error' event on the pool; unheard, Node would end the process.
    pool.on('error', (err) => (opts.onPoolError ?? defaultPoolError)(err));
    const close = trackClients(pool);
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return { db: db as unknown as Db, close };
  }
  const dir = path.join(opts.dataDir, 'db');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const client = await PGlite.create(dir);
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder });
  return { db: db as unknown as Db, close: () => client.close() };
}

function defaultPoolError(err: Error): void {
  console.error('database connection lost while idle:', err.message);
}

/**
 * `pool.end()` resolves once its clients are asked to end, before their connections are closed;
 * waiting for every client's 'remove' (emitted once its connection has ended) means the database
 * can be dropped right after without cutting a connection that is still open.
 */
function trackClients(pool: pg.Pool): () => Promise<void> {
  const open = new Set<unknown>();
  let allClosed: (() => void) | null = null;
  pool.on('connect', (client) => open.add(client));
  pool.on('remove', (client) => {
    open.delete(client);
    if (open.size === 0) allClosed?.();
  });
  return async () => {
    const closed = open.size ? new Promise<void>((resolve) => (allClosed = resolve)) : Promise.resolve();
    await pool.end();
    await closed;
  };
}

/** Postgres error code of a failed query, looking through Drizzle's wrapper. */
export function pgErrorCode(err: unknown): string | undefined {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}
export const UNIQUE_VIOLATION = '23505';
