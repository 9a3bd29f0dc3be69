/** The stopped server's embedded database, opened read-only in spirit: to trace what screens showed. */
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
