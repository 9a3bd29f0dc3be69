/**
 * `npm run admin -- <command>`: the creator console's moderation from a shell, through the
 * operator socket of a running instance (docs/operations.md §7, "Admin command line"):
 *
 *   members [--json]                 every member: username, role, status, online, joined, last seen
 *   ban USERNAME [--reason TEXT]     bans, revokes their sessions, closes their sockets everywhere
 *   unban USERNAME                   lifts a ban
 *   promote USERNAME | demote USERNAME   role admin, or back to member
 *   emergency on | emergency off     the emergency shutdown (bans everyone but the creator's
 *                                    accounts, closes registration), and its end (bans stay)
 *
 * Prints the result only on standard output. Exit codes as keys:generate: 0 done, 2 bad arguments
 * (the reason and the usage on standard error), 1 any other failure (no instance answers, no such
 * member, a refusal).
 */
import { z } from 'zod';
import { loadConfig } from '../config';
import { askOperator, operatorSocketPath } from '../operator/socket';
import { BadArguments, requestOf, USAGE, type Request } from './admin-request';

const BAD_ARGUMENTS = 2;
const FAILED = 1;

/** The request the command line names, or exit 2 with the reason and the usage. */
function requestOrExit(argv: string[]): Request {
  try {
    return requestOf(argv);
  } catch (err) {
    if (!(err instanceof BadArguments)) throw err;
    process.stderr.write(`admin: ${err.message}\n${USAGE}`);
    process.exit(BAD_ARGUMENTS);
  }
}

async function main(): Promise<void> {
  const request = requestOrExit(process.argv.slice(2));
  const config = loadConfig();
  const answer = await askOperator(config.dataDir, request.path, request.body, z.unknown());
  if (answer === null) {
    process.stderr.write(
      `admin: no Enclave server answers on ${operatorSocketPath(config.dataDir)}. ` +
        'Start one (npm start) with this DATA_DIR, or run this command with the DATA_DIR of a running instance.\n',
    );
    process.exit(FAILED);
  }
  process.stdout.write(request.print(answer));
}

main().catch((err: unknown) => {
  process.stderr.write(`admin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(FAILED);
});
