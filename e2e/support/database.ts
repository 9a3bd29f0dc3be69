/**
 * The stopped server's embedded database: read to trace what screens showed, or changed as a server
 * could change it. And PostgreSQL databases of a test's own, for servers run as production runs several.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { EnclaveServer } from './server';

/** Stops the server (only one process may open the database) and runs `read` on its database. */
export async function readDatabase<T>(server: EnclaveServer, read: (db: PGlite) => Promise<T>): Promise<T> {
  await server.stop();
  const db = await PGlite.create(path.join(server.dataDir, 'db'));
  try {
    return await read(db);
  } finally {
    await db.close();
  }
}

/**
 * Stops the server, runs `change` on its database and starts it again: what a compromised or
 * misbehaving server could do to the data it holds, for tests of what members' browsers notice.
 */
export async function changeDatabase(server: EnclaveServer, change: (db: PGlite) => Promise<unknown>): Promise<void> {
  await readDatabase(server, change);
  await server.start();
}

/** Every row of every table, as text (stops the server). */
export async function dumpDatabase(server: EnclaveServer): Promise<string> {
  return readDatabase(server, async (db) => {
    const tables = await db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema in ('public', 'drizzle')",
    );
    let dump = '';
    for (const { table_name } of tables.rows) {
      const rows = await db.query(`select * from "${table_name}"`).catch(() => db.query(`select * from drizzle."${table_name}"`));
      dump += `${table_name}: ${JSON.stringify(rows.rows)}\n`;
    }
    return dump;
  });
}

/** The PostgreSQL server of the production-path tests (docs/architecture.md §6). */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export type PostgresDatabase = {
  url: string;
  /** Runs SQL as the test, not as a server. */
  query<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
};

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A database of the test's own on the PostgreSQL server at TEST_POSTGRES_URL; `drop` removes it. */
export async function newPostgresDatabase(): Promise<PostgresDatabase> {
  const name = `enclave_e2e_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async query(text, values = []) {
      const client = new pg.Client({ connectionString: url.toString() });
      await client.connect();
      try {
        return (await client.query(text, values)).rows;
      } finally {
        await client.end();
      }
    },
    drop: () => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}
