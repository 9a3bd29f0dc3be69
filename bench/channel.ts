/**
 * `npm run bench:channel`: the general channel's key (docs/scaling.md §6) at N members, against the
 * production build on a fresh PostgreSQL database (bench/channel/run.ts): S real members' clients
 * send, one more (the probe sender) sends from a worker thread of its own, the rest are rows
 * written straight into the database. The first key, one join, one removal
 * while the senders keep sending, the storage per message and a client's costs at N. Prints the
 * table and appends it to bench/RESULTS.md. Environment: BENCH_CHANNEL_MEMBERS (100000),
 * BENCH_CHANNEL_SENDERS (8), DATABASE_URL (the PostgreSQL server to make the fresh database on,
 * dropped afterwards; postgres://postgres@127.0.0.1:5432/postgres), BENCH_SERVER_MAIN (another
 * server bundle than server/dist/main.js), BENCH_CHANNEL_SENDS (a file for the removal's sends as
 * JSON, times from the ban), BENCH_NOTE (a line for RESULTS.md), BENCH_RESULTS=0 (print only).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { table } from './channel/report';
import { runChannel, type ChannelOptions } from './channel/run';
import { repoRoot } from './soak/server-process';
import { positiveEnv } from './env';

const options: ChannelOptions = {
  members: positiveEnv('BENCH_CHANNEL_MEMBERS', 100_000),
  senders: positiveEnv('BENCH_CHANNEL_SENDERS', 8),
  postgresUrl: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
  entry: process.env.BENCH_SERVER_MAIN ? { main: path.resolve(process.env.BENCH_SERVER_MAIN) } : 'dist',
  progress: (line) => process.stderr.write(`${line}\n`),
};
// At least one simulated member, the one banned, beside the senders and the probe sender.
if (options.members <= options.senders + 1) throw new Error('BENCH_CHANNEL_MEMBERS must be more than BENCH_CHANNEL_SENDERS + 1');

const started = Date.now();
const result = await runChannel(options);
const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
const changed = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/RESULTS.md');
const heading = [
  `### Channel key, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — N=${options.members.toLocaleString('en-US')}, S=${options.senders}`,
  '',
  `- machine: ${os.availableParallelism()} × ${os.cpus()[0]?.model ?? '?'}, ${os.type()} ${os.release()}, Node ${process.version}; not pinned: the server, PostgreSQL and the bench's clients share the cores`,
  `- commit ${git('rev-parse', '--short', 'HEAD')}${changed ? ' (with uncommitted changes)' : ''}; server ${options.entry === 'dist' ? 'server/dist/main.js' : process.env.BENCH_SERVER_MAIN}; ${result.database}`,
  `- ${options.senders} real senders (TestMember: @enclave/client's MemberClient, wrapping on one thread of Node) and the newcomer, all on this process's main thread; ` +
    `the probe sender, one more real member, in a worker thread of its own; ` +
    `${(options.members - options.senders - 1).toLocaleString('en-US')} simulated members written into the database; run in ${((Date.now() - started) / 60_000).toFixed(1)} min`,
  ...(result.serverErrors.length ? [`- the server logged ${result.serverErrors.length} error line(s)`] : []),
  ...(process.env.BENCH_NOTE ? [`- ${process.env.BENCH_NOTE}`] : []),
  '',
  '',
].join('\n');
const report = `${heading}${table(result.rows)}\n`;
process.stdout.write(`${report}\n`);
if (process.env.BENCH_CHANNEL_SENDS) fs.writeFileSync(process.env.BENCH_CHANNEL_SENDS, JSON.stringify(result.sends, null, 1));
if (process.env.BENCH_RESULTS !== '0') fs.appendFileSync(path.join(repoRoot, 'bench/RESULTS.md'), `\n${report}`);
