/**
 * Folders the server reads at run time. Resolved from this file's folder, which is one below the
 * server's folder both as source (`src/paths.ts`: tests, tsx in development) and bundled into
 * `dist/` (`node dist/main.js`, see rolldown.config.ts); a path relative to any deeper source
 * file would point elsewhere once bundled.
 */
import path from 'node:path';

const serverDir = path.resolve(import.meta.dirname, '..');

/** Drizzle's SQL migrations, applied at every start. */
export const migrationsFolder = path.join(serverDir, 'drizzle');

/** The built web app (`npm run build`). */
export const webDistDir = path.resolve(serverDir, '../web/dist');

/** The embedded database's thread (db/embedded-worker.ts): the source in development and tests, its bundle in `dist/`. */
export const embeddedWorkerFile = import.meta.filename.endsWith('.ts')
  ? path.join(serverDir, 'src/db/embedded-worker.ts')
  : path.join(serverDir, 'dist/embedded-worker.js');
