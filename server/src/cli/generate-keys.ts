/**
 * `npm run keys:generate -- --count N [--expiration-days D] [--purchase-id P] [--price USD]`
 * prints N new invite keys, one per line, and nothing else on stdout.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config';
import { openDatabase } from '../db/client';
import { mintKeys } from '../keys/service';
import { generateKeysCommandSchema, generateKeysViaSocket } from '../operator/socket';

/** Bad arguments exit 2, any other failure 1 (docs/operations.md §7). */
const BAD_ARGUMENTS = 2;

function refuseArguments(message: string): never {
  process.stderr.write(
    `keys:generate: ${message}\nusage: npm run keys:generate -- --count N [--expiration-days D] [--purchase-id P] [--price USD]\n`,
  );
  process.exit(BAD_ARGUMENTS);
}

function readArguments() {
  try {
    return parseArgs({
      options: {
        count: { type: 'string', default: '1' },
        'expiration-days': { type: 'string' },
        'purchase-id': { type: 'string' },
        price: { type: 'string' },
      },
    }).values;
  } catch (err) {
    // An unknown option, a value missing, a stray positional argument.
    return refuseArguments((err as Error).message);
  }
}

async function main(): Promise<void> {
  const values = readArguments();
  const parsed = generateKeysCommandSchema.safeParse({
    count: Number(values.count),
    expirationDays: values['expiration-days'] === undefined ? undefined : Number(values['expiration-days']),
    purchaseId: values['purchase-id'],
    salePrice: values.price === undefined ? undefined : Number(values.price),
  });
  if (!parsed.success) refuseArguments(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  const config = loadConfig();
  // A running server holds the embedded database: ask it. PostgreSQL takes any number of clients.
  let keys = config.databaseUrl ? null : await generateKeysViaSocket(config.dataDir, parsed.data);
  if (!keys) {
    const database = await openDatabase(config);
    try {
      keys = await mintKeys(database.db, parsed.data);
    } finally {
      await database.close();
    }
  }
  process.stdout.write(keys.map((k) => `${k}\n`).join(''));
}

main().catch((err: unknown) => {
  process.stderr.write(`keys:generate failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
