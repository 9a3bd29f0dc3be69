/**
 * `npm run bench:startup`: how long the production build takes to serve on an existing data
 * directory (the target: under one second). One start on a fresh embedded database creates it
 * (migrations, master key), then STARTUP_RUNS (7) starts of `node server/dist/main.js` and as many
 * of `npm start` on that directory, alternating; each from the spawn to the first 200 on
 * GET /api/health and to the "running at" line. Started as the soak starts the server
 * (bench/soak/server-process.ts), without its probe. STARTUP_COMPARE_MAIN adds another bundle,
 * started with node in turn with the others, for a before/after in one sitting (a copy of
 * server/dist built from another commit, kept in server/ as for the load bench's
 * BENCH_SERVER_MAIN). STARTUP_RESULTS is the file the figures are appended to (bench/RESULTS.md;
 * empty for none).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, repoRoot, ServerProcess, type ServerEntry } from './soak/server-process';

const TARGET_MS = 1000;
const runs = Number(process.env.STARTUP_RUNS ?? '7');
if (!Number.isInteger(runs) || runs <= 0)
  throw new Error(`STARTUP_RUNS must be a positive whole number, not "${process.env.STARTUP_RUNS}"`);
const resultsFile = process.env.STARTUP_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');
const compareMain = process.env.STARTUP_COMPARE_MAIN ? path.resolve(process.env.STARTUP_COMPARE_MAIN) : null;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** `cpuMs`: the server's CPU time (user + system) once it answered; for node only (npm start's pid is npm's). */
type Start = { healthMs: number; runningMs: number; cpuMs: number };

/** Resolves with `performance.now()` at the first 200 from /api/health; connection refusals are the server not listening yet. */
async function firstHealthy(port: number, stopped: { value: boolean }): Promise<number> {
  for (;;) {
    if (stopped.value) throw new Error('the server stopped before answering /api/health');
    try {
      const res = await fetch(`http://127.0.0.1:${port}/api/health`);
      await res.arrayBuffer();
      if (res.status === 200) return performance.now();
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
}

async function startOnce(dataDir: string, env: Record<string, string>, entry: ServerEntry, npm: boolean): Promise<Start> {
  const port = await freePort();
  const stopped = { value: false };
  const healthy = firstHealthy(port, stopped);
  let server: ServerProcess;
  try {
    server = await ServerProcess.start(entry, { ...env, DATA_DIR: dataDir }, path.join(dataDir, 'server.log'), { probe: false, npm, port });
  } catch (err) {
    stopped.value = true;
    await healthy.catch(() => undefined);
    throw err;
  }
  const healthyAt = await healthy;
  const cpuMs = npm ? Number.NaN : server.cpuSeconds() * 1000;
  const code = await server.stop();
  if (code !== 0) throw new Error(`the server exited with ${code}: see ${server.logFile}`);
  return { healthMs: healthyAt - server.spawnedAt, runningMs: server.runningAt - server.spawnedAt, cpuMs };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ms = (x: number) => x.toFixed(0);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-startup-'));
const env = { MASTER_KEY: randomBytes(64).toString('hex'), LOG_LEVEL: 'warn' };
try {
  const first = await startOnce(dataDir, env, 'dist', false);
  log(`fresh data directory: ${ms(first.healthMs)} ms to the first 200`);
  const node: Start[] = [];
  const npm: Start[] = [];
  const compared: Start[] = [];
  for (let i = 0; i < runs; i++) {
    node.push(await startOnce(dataDir, env, 'dist', false));
    npm.push(await startOnce(dataDir, env, 'dist', true));
    if (compareMain) compared.push(await startOnce(dataDir, env, { main: compareMain }, false));
    const line = [
      `node ${ms(node.at(-1)?.healthMs ?? 0)} ms`,
      `npm start ${ms(npm.at(-1)?.healthMs ?? 0)} ms`,
      ...(compareMain ? [`compared ${ms(compared.at(-1)?.healthMs ?? 0)} ms`] : []),
    ];
    log(`run ${i + 1}/${runs}: ${line.join(', ')}`);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repoRoot, encoding: 'utf8' }).trim();
  const dirty = git('status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/RESULTS.md') ? ' (with uncommitted changes)' : '';
  const row = (label: string, starts: Start[], pick: (s: Start) => number, judged = true) => {
    const xs = starts.map(pick);
    const m = median(xs);
    const verdict = !judged ? '' : m < TARGET_MS ? 'met' : `${ms(m - TARGET_MS)} ms over`;
    return `| ${label} | ${ms(m)} | ${ms(Math.min(...xs))}–${ms(Math.max(...xs))} | ${verdict} |`;
  };
  const nodeRows = (main: string, starts: Start[]) => [
    row(`first 200 on /api/health, \`node ${main}\``, starts, (s) => s.healthMs),
    row(`"running at" line, \`node ${main}\``, starts, (s) => s.runningMs),
    row(`server CPU (user + system) until it answered, \`node ${main}\``, starts, (s) => s.cpuMs, false),
  ];
  const text = [
    `### Startup, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — embedded database, existing data directory`,
    '',
    `- machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, ${os.type()} ${os.release()}, Node ${process.version}; load average ${os.loadavg()[0]?.toFixed(1)} at the end`,
    `- commit ${git('rev-parse', '--short', 'HEAD')}${dirty}; ${runs} starts of each, in turn${compareMain ? ` (compared: ${path.relative(repoRoot, compareMain)})` : ''}; the first start on the fresh directory: ${ms(first.healthMs)} ms`,
    ...(process.env.STARTUP_NOTE ? [`- ${process.env.STARTUP_NOTE}`] : []),
    '',
    `| spawn → | median, ms | range, ms | target ${TARGET_MS} ms |`,
    '|---|---|---|---|',
    ...nodeRows('server/dist/main.js', node),
    row('first 200 on /api/health, `npm start`', npm, (s) => s.healthMs),
    row('"running at" line, `npm start`', npm, (s) => s.runningMs),
    `| npm's own overhead (median of npm start − median of node) | ${ms(median(npm.map((s) => s.healthMs)) - median(node.map((s) => s.healthMs)))} |  |  |`,
    ...(compareMain ? nodeRows(path.relative(repoRoot, compareMain), compared) : []),
    '',
  ].join('\n');
  process.stdout.write(`${text}\n`);
  if (resultsFile) fs.appendFileSync(resultsFile, `\n${text}`);
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
