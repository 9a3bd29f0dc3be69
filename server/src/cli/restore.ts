/**
 * `npm run restore -- FILE`: replaces the embedded database with a `backup` archive
 * (docs/operations.md §8). Refuses while a server runs on the data directory, and changes nothing
 * unless the archive opens as an Enclave database. PostgreSQL is restored with pg_restore.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { RestoreRefused, restoreEmbedded } from '../backup/restore';
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
    process.stderr.write('usage: npm run restore -- FILE   (a .tar, or an older .tar.gz, written by npm run backup)\n');
    process.exit(2);
  }
  const config = loadConfig();
  if (config.databaseUrl) {
    process.stderr.write(
      'restore: DATABASE_URL is set; restore PostgreSQL with pg_restore, every instance stopped, into an empty database:\n' +
        '  pg_restore --no-owner --dbname="$DATABASE_URL" FILE.dump\n',
    );
    process.exit(2);
  }
  const archive = path.resolve(process.env.INIT_CWD ?? process.cwd(), positionals[0]!);
  const result = await restoreEmbedded(config.dataDir, archive);
  const files =
    result.attachments === null
      ? 'attachments left as they were (the archive carries none)'
      : `${result.attachments} attachment files in ${path.join(config.dataDir, 'attachments')}`;
  process.stdout.write(
    `Restored ${path.join(config.dataDir, 'db')} from ${result.archive} (sha256 ${result.sha256}): ` +
      `${result.users} members, ${result.messages} messages; ${files}. Start the server again.\n`,
  );
  if (result.attachmentsMissing) {
    process.stdout.write(
      `${result.attachmentsMissing} attachments the database knows have no file here: members see them as unavailable ` +
        '(they live in a bucket, or were not backed up with this archive).\n',
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`restore ${err instanceof RestoreRefused ? 'refused' : 'failed'}: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
