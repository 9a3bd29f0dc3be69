/** The stopped server's embedded database: read to trace what screens showed, or changed as a server could change it. */
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
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
    const tables = await db.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema in ('public', 'drizzle')");
    let dump = '';
    for (const { table_name } of tables.rows) {
      const rows = await db.query(`select * from "${table_name}"`).catch(() => db.query(`select * from drizzle."${table_name}"`));
      dump += `${table_name}: ${JSON.stringify(rows.rows)}\n`;
    }
    return dump;
  });
}
