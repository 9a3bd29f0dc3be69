/**
 * `npm run backup [-- --out FILE_OR_FOLDER]`: one backup of the database, recorded in `backups`
 * (docs/operations.md §8). Prints the archive's path, size and SHA-256.
 *
 * Embedded database: a running server dumps it (operator socket), else this command opens it.
 * PostgreSQL (`DATABASE_URL`): `pg_dump --format=custom`, when pg_dump is on PATH.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { attachmentsDirOf } from '../attachments/store';
import { backupEmbedded, backupPath, backupPostgres, PgClientMissing, type BackupResult } from '../backup/backup';
import { loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { backupViaSocket } from '../operator/socket';

async function main(): Promise<void> {
  let values: { out?: string };
  try {
    ({ values } = parseArgs({ options: { out: { type: 'string' } } }));
  } catch (err) {
    process.stderr.write(`backup: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const config = loadConfig();
  // Relative to where the command was typed, as DATA_DIR is (npm runs scripts inside server/).
  const out = values.out === undefined ? undefined : path.resolve(process.env.INIT_CWD ?? process.cwd(), values.out);
  const kind = config.databaseUrl ? 'postgres' : 'embedded';
  const file = backupPath(config.dataDir, kind, out);

  let result: BackupResult | null = config.databaseUrl ? null : await backupViaSocket(config.dataDir, { file });
  if (!result) {
    const database = await openDatabase(config);
    try {
      result = config.databaseUrl
        ? await backupPostgres(database.db, config.databaseUrl, file)
        : await backupEmbedded(database.db, file, attachmentsDirOf(config.attachments.store, config.dataDir));
    } finally {
      await database.close();
    }
  }
  process.stdout.write(
    `${result.file}\n${result.bytes} bytes, sha256 ${result.sha256}\n` +
      'It holds ciphertext, sealed key bundles and hashes (no message text, no private key in the clear), ' +
      'but also unused invite keys and security events with IP addresses: store it as sensitive.\n',
  );
}

main().catch((err: unknown) => {
  if (err instanceof PgClientMissing) {
    process.stderr.write(
      "backup failed: pg_dump was not found on PATH. Install the PostgreSQL client tools of your server's major version " +
        '(Debian: apt-get install postgresql-client), or dump by hand:\n' +
        '  pg_dump --format=custom --file=enclave-$(date +%F).dump "$DATABASE_URL"\n',
    );
    process.exit(1);
  }
  process.stderr.write(`backup failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
