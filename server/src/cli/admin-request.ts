/**
 * What `npm run admin` makes of its command line (cli/admin.ts): the request for the operator
 * socket and how to print its answer, or BadArguments saying why not.
 */
import { parseArgs } from 'node:util';
import type { MonitoredUser } from '@enclave/protocol';
import type { z } from 'zod';
import { describeIssues } from '../http/errors';
import {
  banCommandSchema,
  emergencyAnswerSchema,
  emergencyCommandSchema,
  memberAnswerSchema,
  membersAnswerSchema,
  roleAnswerSchema,
  roleCommandSchema,
  unbanCommandSchema,
} from '../operator/admin-commands';

export const USAGE = `usage: npm run admin -- members [--json]
       npm run admin -- ban USERNAME [--reason TEXT]
       npm run admin -- unban USERNAME
       npm run admin -- promote USERNAME
       npm run admin -- demote USERNAME
       npm run admin -- emergency on|off
`;

/** A command line that names no request: the command prints its message and USAGE, and exits 2. */
export class BadArguments extends Error {}

function refuseArguments(message: string): never {
  throw new BadArguments(message);
}

/** A command to send: its socket path and checked body, and how to print its answer. */
export type Request = { path: string; body: unknown; print: (answer: unknown) => string };

/** Prints an answer of this shape, parsed first: what the socket says is input like any other. */
const printing =
  <S extends z.ZodType>(answer: S, print: (a: z.output<S>) => string) =>
  (raw: unknown) =>
    print(answer.parse(raw));

function checked<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  return parsed.success ? parsed.data : refuseArguments(describeIssues(parsed.error));
}

/** Reads the command line into a request, or throws BadArguments. */
export function requestOf(argv: string[]): Request {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, reason: { type: 'string' } } });
  } catch (err) {
    // An unknown option, a value missing.
    return refuseArguments((err as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  if (name === undefined) return refuseArguments('a command is needed');
  const arity = (n: number, what: string) => {
    if (rest.length !== n) refuseArguments(`${name} takes ${what}`);
  };
  const only = (...allowed: ('json' | 'reason')[]) => {
    for (const option of ['json', 'reason'] as const) {
      if (values[option] !== undefined && !allowed.includes(option)) refuseArguments(`--${option} is not an option of ${name}`);
    }
  };
  switch (name) {
    case 'members':
      arity(0, 'no argument');
      only('json');
      return {
        path: '/members',
        body: {},
        print: printing(membersAnswerSchema, (a) => (values.json ? `${JSON.stringify(a.users, null, 2)}\n` : memberTable(a.users))),
      };
    case 'ban':
      arity(1, 'one username');
      only('reason');
      return {
        path: '/ban',
        body: checked(banCommandSchema, { username: rest[0], reason: values.reason }),
        print: printing(memberAnswerSchema, (a) => `banned ${a.username}\n`),
      };
    case 'unban':
      arity(1, 'one username');
      only();
      return {
        path: '/unban',
        body: checked(unbanCommandSchema, { username: rest[0] }),
        print: printing(memberAnswerSchema, (a) => `unbanned ${a.username}\n`),
      };
    case 'promote':
    case 'demote':
      arity(1, 'one username');
      only();
      return {
        path: '/role',
        body: checked(roleCommandSchema, { username: rest[0], role: name === 'promote' ? 'admin' : 'member' }),
        print: printing(roleAnswerSchema, (a) => `${a.username} is now ${a.role === 'admin' ? 'an admin' : 'a member'}\n`),
      };
    case 'emergency':
      arity(1, 'on or off');
      only();
      if (rest[0] !== 'on' && rest[0] !== 'off') return refuseArguments(`emergency takes on or off, not ${rest[0]}`);
      return {
        path: '/emergency',
        body: checked(emergencyCommandSchema, { active: rest[0] === 'on' }),
        print: printing(emergencyAnswerSchema, (a) =>
          a.emergency.active
            ? `emergency on since ${a.emergency.since}: ${a.banned} members banned, registration closed\n`
            : 'emergency off: registration open again; the bans stay (unban members one by one)\n',
        ),
      };
    default:
      return refuseArguments(`unknown command ${name}`);
  }
}

/** How a member stands, in one word: the console's badges. */
const statusOf = (u: MonitoredUser) => (u.isBanned ? 'banned' : u.isLocked ? 'locked' : u.isCompromised ? 'compromised' : 'active');

/** The member list as a table: one member per line, columns padded; times in UTC to the minute. */
function memberTable(list: MonitoredUser[]): string {
  const minute = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')}Z` : '-');
  const rows = [
    ['USERNAME', 'ROLE', 'STATUS', 'ONLINE', 'JOINED', 'LAST SEEN'],
    ...list.map((u) => [
      u.username,
      u.isCreatorAccount ? `${u.role}*` : u.role,
      statusOf(u),
      u.online ? 'yes' : 'no',
      minute(u.joinedAt),
      minute(u.lastActivity),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  const note = list.some((u) => u.isCreatorAccount) ? "* the creator's own account (spared by the emergency shutdown)\n" : '';
  return `${lines.join('\n')}\n${note}`;
}
