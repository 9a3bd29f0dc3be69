/**
 * `npm run restore -- FILE`: replaces the embedded database with a `backup` archive, or with
 * DATABASE_URL fills an empty PostgreSQL database from a `.dump` (docs/operations.md §8). Refuses
 * while a server runs on the data directory, or when the PostgreSQL database is not empty, and
 * changes nothing unless the archive is an Enclave database. Either records the restore for the
 * compliance panel.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PgClientMissing } from '../backup/backup';
import { RestoreRefused, restoreEmbedded } from '../backup/restore';
import { restorePostgres } from '../backup/restore-postgres';
import { loadConfig } from '../config';

async function main(): Promise<void> {
  let positionals: string[];
  try {
    ({ positionals } = parseArgs({ allowPositionals: true, options: {} }));
  } catch (err) {
    process.stderr.write(`restore: ${(err as Error).message}\n`);
    process.exit(2);
  }
  if (positionals.length !== 1) {
    process.stderr.write(
      'usage: npm run restore -- FILE   (a .tar, or an older .tar.gz, written by npm run backup; with DATABASE_URL, a .dump)\n',
    );
    process.exit(2);
  }
  const config = loadConfig();
  const archive = path.resolve(process.env.INIT_CWD ?? process.cwd(), positionals[0]!);
  if (config.databaseUrl) {
    const restored = await restorePostgres(config.databaseUrl, archive, config.dataDir);
    process.stdout.write(
      `Restored the database of DATABASE_URL from ${restored.archive} (sha256 ${restored.sha256}, taken ${restored.takenAt}): ` +
        `${restored.users} members, ${restored.messages} messages. The restore is recorded for the compliance panel. Start the instances again.\n`,
    );
    return;
  }
  const result = await restoreEmbedded(config.dataDir, archive);
  const files =
    result.attachments === null
      ? 'attachments left as they were (the archive carries none)'
      : `${result.attachments} attachment files in ${path.join(config.dataDir, 'attachments')}`;
  process.stdout.write(
    `Restored ${path.join(config.dataDir, 'db')} from ${result.archive} (sha256 ${result.sha256}): ` +
      `${result.users} members, ${result.messages} messages; ${files}. The restore is recorded for the compliance panel. Start the server again.\n`,
  );
  if (result.attachmentsMissing) {
    process.stdout.write(
      `${result.attachmentsMissing} attachments the database knows have no file here: members see them as unavailable ` +
        '(they live in a bucket, or were not backed up with this archive).\n',
    );
  }
}

main().catch((err: unknown) => {
  if (err instanceof PgClientMissing) {
    process.stderr.write(
      "restore failed: pg_restore was not found on PATH. Install the PostgreSQL client tools of your server's major version " +
        '(Debian: apt-get install postgresql-client).\n',
    );
    process.exit(1);
  }
  process.stderr.write(
    `restore ${err instanceof RestoreRefused ? 'refused' : 'failed'}: ${err instanceof Error ? err.message : String(err)}\n`,
  );
  process.exit(1);
});
