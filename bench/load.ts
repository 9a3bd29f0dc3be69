/**
 * `npm run bench:load`: the load bench (bench/load/run.ts) against the production build, then the
 * bare ws ceiling (bench/bare-ws.ts) with the same client, in the same sitting; prints the table
 * with the ratios and appends it to bench/RESULTS.md. Environment: BENCH_MEMBERS (1000),
 * BENCH_SENDERS (48), BENCH_RATE (50 messages/s in the latency phase), BENCH_SECONDS (10, each of
 * the latency and saturation phases), DATABASE_URL (a PostgreSQL server to make a fresh database
 * on, dropped afterwards; the embedded database without it), BENCH_SERVER_MAIN (another server
 * bundle than server/dist/main.js, to measure a before and an after in one sitting),
 * BENCH_INSTANCES (1; more needs DATABASE_URL, and shares events through Redis at REDIS_URL,
 * default 127.0.0.1:6379), BENCH_NOTE (a line for RESULTS.md), BENCH_RESULTS=0 (print only),
 * BENCH_HEAP_SNAPSHOTS (a directory for heap snapshots of the servers before and after the join,
 * to compare with bench/heap-diff.ts).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadTable } from './load/report';
import { pin, runLoad, type LoadOptions } from './load/run';
import { repoRoot } from './soak/server-process';
import { positiveEnv } from './env';

const progress = (line: string) => process.stderr.write(`${line}\n`);
const instances = positiveEnv('BENCH_INSTANCES', 1);
// Read before pinning: a pinned process sees one core.
const cores = os.availableParallelism();
// Several instances take every core there is: nothing is pinned then.
const pinned = instances === 1 && cores >= 2 && pin(process.pid, 1);
const options: LoadOptions = {
  members: positiveEnv('BENCH_MEMBERS', 1000),
  senders: positiveEnv('BENCH_SENDERS', 48),
  rate: positiveEnv('BENCH_RATE', 50),
  seconds: positiveEnv('BENCH_SECONDS', 10),
  entry: process.env.BENCH_SERVER_MAIN ? { main: path.resolve(process.env.BENCH_SERVER_MAIN) } : 'dist',
  postgresUrl: process.env.DATABASE_URL || undefined,
  instances,
  redisUrl: process.env.REDIS_URL || 'redis://127.0.0.1:6379',
  pin: pinned,
  progress,
  heapSnapshots: process.env.BENCH_HEAP_SNAPSHOTS || undefined,
};

const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
const bare = await runLoad('bare-ws', options);
const enclave = await runLoad('enclave', options);
const cpu = os.cpus()[0]?.model ?? '?';
const heading = [
  `### Load, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${enclave.target}, N=${options.members}`,
  '',
  `- machine: ${cores} × ${cpu}, ${os.type()} ${os.release()}, Node ${process.version}; ` +
    (pinned ? 'server pinned to core 0, load client to core 1 (taskset)' : 'not pinned'),
  ...(instances > 1
    ? [
        `- ${instances} instances of Enclave on one PostgreSQL database and one Redis, member i on instance i mod ${instances} (socket, sign-in and sends), as a round-robin proxy would place them; ` +
          `CPU, RSS and heap are the instances' added up, deliveries/s and join time the aggregate. The bare ws ceiling is one process. ` +
          `On ${cores} cores the instances, PostgreSQL, Redis and the load client share the machine: the aggregate shows the fan-out split between the instances, not what ${instances} machines would carry.`,
      ]
    : []),
  `- commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/RESULTS.md') ? ' (with uncommitted changes)' : ''}; server ${options.entry === 'dist' ? 'server/dist/main.js' : process.env.BENCH_SERVER_MAIN}; ` +
    `${options.senders} senders, ${options.rate} msg/s for ${options.seconds} s, then saturation for ${options.seconds} s`,
  ...(process.env.BENCH_NOTE ? [`- ${process.env.BENCH_NOTE}`] : []),
  '',
  '',
].join('\n');
const table = `${heading}${loadTable(enclave, bare)}\n`;
process.stdout.write(`${table}\n`);
if (process.env.BENCH_RESULTS !== '0') fs.appendFileSync(path.join(repoRoot, 'bench/RESULTS.md'), `\n${table}`);
