import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type pg from 'pg';
import { migrationsFolder } from '../paths';
import { EmbeddedDatabase } from './embedded';
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
  /** PostgreSQL connections at most (DATABASE_POOL_MAX): sends wait for their commit on one, so this bounds sends in flight. */
  databasePoolMax?: number;
  dataDir: string;
  /** Where a connection lost while idle is reported (the pool replaces it on the next query). */
  onPoolError?: (err: Error) => void;
  /** Sees the text of every statement the server sends (tests count the round trips of a send). */
  onQuery?: (query: string) => void;
}): Promise<Database> {
  const logger = opts.onQuery ? { logQuery: opts.onQuery } : undefined;
  if (opts.databaseUrl) {
    // The PostgreSQL driver is loaded only when used: the embedded database's start need not pay for it.
    const [{ default: pg }, { drizzle: drizzlePg }, { migrate: migratePg }] = await Promise.all([
      import('pg'),
      import('drizzle-orm/node-postgres'),
      import('drizzle-orm/node-postgres/migrator'),
    ]);
    // A request waits at most CONNECT_TIMEOUT_MS for a connection (PostgreSQL down or every
    // connection busy), then fails as "database unavailable" (a 503, http/errors.ts).
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.databasePoolMax ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // An idle connection that PostgreSQL ends (restart, pg_terminate_backend, DROP DATABASE ...
    // WITH (FORCE)) is an 'error' event on the pool; unheard, Node would end the process.
    pool.on('error', (err) => (opts.onPoolError ?? defaultPoolError)(err));
    // A client in use (by a request, a transaction) has no pool listener: when PostgreSQL ends its
    // connection it would emit an unheard 'error' and end the process too. Nothing to do with it
    // here: whatever was using the client fails by itself (a 503), and the pool drops the client.
    pool.on('connect', (client) => client.on('error', () => undefined));
    const close = trackClients(pool);
    const db = drizzlePg(pool, { schema, logger });
    // Instances starting at once take turns: the migrator runs on the connection that holds the
    // lock, and the next one finds every migration applied.
    const client = await pool.connect();
    let failed: Error | undefined;
    try {
      await client.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
      await migratePg(drizzlePg(client, { logger }), { migrationsFolder });
      await client.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    } catch (err) {
      // Its connection is closed rather than reused, which lets go of the lock whatever happened.
      failed = err as Error;
      throw err;
    } finally {
      client.release(failed);
    }
    return { db: db as unknown as Db, close };
  }
  const dir = path.join(opts.dataDir, 'db');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Finished log segments are deleted, not renamed for reuse with their old records in them:
  // erased rows must leave every file (db/erasure.ts).
  const client = await EmbeddedDatabase.open({ dataDir: dir, startParams: [...PGlite.defaultStartParams, '-c', 'wal_recycle=off'] });
  // Drizzle's PGlite driver calls only `query` and `transaction`, which the thread's proxy speaks.
  const db = drizzlePglite(client as unknown as PGlite, { schema, logger });
  try {
    await migratePglite(db, { migrationsFolder });
  } catch (err) {
    await client.close();
    throw err;
  }
  return { db: db as unknown as Db, close: () => client.close() };
}

const CONNECT_TIMEOUT_MS = 5000;
/** The session-level advisory lock the migrator runs under (PostgreSQL scopes it to the database). */
const MIGRATION_LOCK = "hashtext('enclave.migrations')";

/** The embedded database under a Drizzle handle, or null for PostgreSQL. */
export function embeddedClient(db: Db): EmbeddedDatabase | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof EmbeddedDatabase ? client : null;
}

/** Connections the database may use at once: the PostgreSQL pool's bound, or the embedded database's one. */
export function connectionsOf(db: Db): number {
  if (embeddedClient(db)) return 1;
  return (db as unknown as { $client: pg.Pool }).$client.options.max;
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
export const FOREIGN_KEY_VIOLATION = '23503';

/**
 * PostgreSQL states that mean "not now" rather than "wrong": class 08 (connection exception),
 * shutting down (57P01, 57P02), starting up (57P03), too many connections (53300).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
/** Socket errors on the way to the database. */
const UNAVAILABLE_SYSCALLS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** node-postgres's own words for a lost or unobtainable connection (these carry no code). */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

/**
 * Whether a failed query failed because the database could not be reached or is restarting
 * (the request may succeed later), looking through Drizzle's wrapper and the several attempts of
 * an AggregateError (one per address of a host name).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { code, message, cause, errors } = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_SYSCALLS.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    return visit(cause) || (Array.isArray(errors) && errors.some(visit));
  };
  return visit(err);
}
