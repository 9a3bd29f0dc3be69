/**
 * `npm run bench:browser`: the web app in Chromium against the production build (bench/README.md
 * says what it measures and how). One server process as the soak starts it (bench/soak/), 1,005
 * general-channel messages from 50 senders sent by `TestMember`s (real keys, the web app's own
 * sender keys), then a reader signs in through the login screen, in a fresh browser profile each
 * run, and reads the whole history; then the page is opened again in the same profile, the session
 * restored, and its first page is drawn from the browser's sealed history cache. Environment: BROWSER_RUNS (7), BROWSER_RESULTS (the file the
 * figures are appended to, bench/RESULTS.md; empty for none), BROWSER_TRACE (a directory for
 * Chromium traces of the first run's three phases, to open in DevTools). The report goes to stdout.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { limits } from '@enclave/protocol';
import { chromium, type Browser, type Page } from 'playwright-core';
import {
  historyWritten,
  installLongTaskObserver,
  loadAllHistory,
  signInAndWaitFirstPage,
  timeline,
  watchFirstPage,
  type Phase,
} from './browser/page';
import { chromiumArgs } from './chromium';
import { freshDatabase } from './soak/database';
import { sendUntilStored } from './soak/members';
import { SoakNetwork } from './soak/network';
import { repoRoot, ServerProcess } from './soak/server-process';

const SENDERS = 50;
const MESSAGES = 1005;
/** The web app's page sizes: the newest page, then older pages as the reader scrolls up. */
const PAGE = limits.historyPageSize;
const OLDER_PAGE = limits.historyMaxPageSize;
const targets = { firstPageMs: 150, historyMs: 300, blockMs: 50, initialJsKB: 200 };

const runs = Number(process.env.BROWSER_RUNS ?? '7');
if (!Number.isInteger(runs) || runs <= 0)
  throw new Error(`BROWSER_RUNS must be a positive whole number, not "${process.env.BROWSER_RUNS}"`);
const resultsFile = process.env.BROWSER_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');
const traceDir = process.env.BROWSER_TRACE || null;
const log = (line: string) => process.stderr.write(`${line}\n`);

/** A text of 20 to 200 characters, different for each message, with no randomness. */
function messageText(i: number, sender: string): string {
  const words = ['enclave', 'history', 'render', 'sender', 'epoch', 'channel', 'decrypt', 'message', 'signal', 'pinned'];
  const extra = Array.from({ length: (i * 7) % 25 }, (_, k) => words[(i + k) % words.length]).join(' ');
  return `Message ${i + 1} from ${sender}. ${extra}`.trim();
}

type Seeded = { server: ServerProcess; readerToken: string; drop: () => Promise<void> };

async function seed(): Promise<Seeded> {
  const database = await freshDatabase();
  const masterKey = randomBytes(64).toString('hex');
  const windowMs = 1000;
  const server = await ServerProcess.start(
    'dist',
    // Per-second rate-limit windows, as in the soak: every member here comes from 127.0.0.1.
    { ...database.env, MASTER_KEY: masterKey, RATE_LIMIT_WINDOW_MS: String(windowMs), LOG_LEVEL: 'warn' },
    path.join(database.dataDir, 'server.log'),
  );
  const network = new SoakNetwork(server, masterKey, windowMs);
  // The reader joins first: every sender's epoch is wrapped for them.
  const reader = await network.join(false);
  const senders = [];
  for (let i = 0; i < SENDERS; i++) senders.push(await network.join(false));
  log(`${senders.length} senders and the reader joined; sending ${MESSAGES} messages`);
  // Round by round, so the senders interleave as in a busy channel; one send per sender at a time
  // keeps each under the per-member send limit.
  for (let round = 0; round * SENDERS < MESSAGES; round++) {
    const batch = senders.slice(0, Math.min(SENDERS, MESSAGES - round * SENDERS));
    await Promise.all(
      batch.map(async (s, k) => {
        const i = round * SENDERS + k;
        await sendUntilStored(s.tm, 'all', messageText(i, s.name));
      }),
    );
  }
  log(`${MESSAGES} messages sent`);
  const readerToken = reader.tm.token;
  // No socket of the seeding stays open while the browser is measured.
  await network.leaveAll();
  return {
    server,
    readerToken,
    drop: async () => {
      await server.stop();
      await database.drop();
    },
  };
}

type Script = { url: string; encoding: string; cacheControl: string; wireBytes: number; bodyBytes: number };
type Transfer = { scripts: Script[]; indexCacheControl: string };

/**
 * Records the scripts the page fetches from now on, with their size on the wire (the body as sent:
 * compressed); `collect` gives those fetched so far.
 */
function recordScripts(page: Page): { collect(): Promise<Transfer> } {
  const pending: Promise<Script | null>[] = [];
  let indexCacheControl = '';
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.pathname === '/') indexCacheControl = response.headers()['cache-control'] ?? '';
    if (!url.pathname.endsWith('.js')) return;
    pending.push(
      (async () => {
        const [sizes, body] = await Promise.all([response.request().sizes(), response.body()]);
        const headers = response.headers();
        return {
          url: url.pathname,
          encoding: headers['content-encoding'] ?? 'identity',
          cacheControl: headers['cache-control'] ?? '',
          wireBytes: sizes.responseBodySize,
          bodyBytes: body.length,
        };
      })().catch(() => null),
    );
  });
  return {
    collect: async () => ({ scripts: (await Promise.all(pending)).filter((s) => s !== null), indexCacheControl }),
  };
}

type Run = {
  firstPage: Phase;
  history: Phase;
  /** The page opened again with the session restored: navigation → first page, drawn from the warm cache. */
  reopenedMs: number;
  reopenedBlockMs: number;
  firstPageBlockMs: number;
  historyBlockMs: number;
  transfer: Transfer;
  chatScripts: Script[];
};

/**
 * Runs `phase` under Chromium's tracing when `file` is given, writing the trace there (the main
 * thread's tasks, layout and paint, and JavaScript samples; DevTools' Performance panel opens it).
 */
async function traced<T>(page: Page, file: string | null, phase: () => Promise<T>): Promise<T> {
  if (!file) return phase();
  const browser = page.context().browser();
  if (!browser) throw new Error('no browser to trace');
  await browser.startTracing(page, {
    path: file,
    categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8.execute', 'disabled-by-default-v8.cpu_profiler'],
  });
  try {
    return await phase();
  } finally {
    await browser.stopTracing();
  }
}

async function measureOnce(browser: Browser, baseURL: string, token: string, traceTo: string | null): Promise<Run> {
  const context = await browser.newContext({ baseURL });
  try {
    const page = await context.newPage();
    // tsx compiles this file keeping function names through a `__name` helper, which the functions
    // passed to the page call: the page gets one that does nothing.
    await page.addInitScript('globalThis.__name = (fn) => fn;');
    await page.addInitScript(installLongTaskObserver);
    const recorder = recordScripts(page);
    await page.goto('/');
    await page.getByLabel('Access Token', { exact: true }).waitFor();
    await page.waitForLoadState('networkidle');
    const transfer = await recorder.collect();
    await page.getByLabel('Access Token', { exact: true }).fill(token);
    const file = (name: string) => (traceTo ? path.join(traceTo, `${name}.json`) : null);
    const firstPage = await traced(page, file('first-page'), () => page.evaluate(signInAndWaitFirstPage, PAGE));
    const history = await traced(page, file('history'), () => page.evaluate(loadAllHistory, MESSAGES));
    const chatScripts = (await recorder.collect()).scripts.slice(transfer.scripts.length);
    const readTasks = () => page.evaluate(() => (window as unknown as { __longTasks: { start: number; duration: number }[] }).__longTasks);
    const tasks = await readTasks();
    const longest = (p: Pick<Phase, 'start' | 'end'>, within = tasks) =>
      Math.max(0, ...within.filter((t) => t.start + t.duration > p.start && t.start < p.end).map((t) => t.duration));
    // A second sign-in in this browser, as the app has one: the page opened again while the
    // session lasts (a logout, or a session found ended, wipes the cache with the keys). The
    // reader's history was written to the cache as they read; the page opens once it is there.
    await page.waitForFunction(historyWritten);
    await page.addInitScript(watchFirstPage, PAGE);
    await traced(page, file('opened-again'), async () => {
      await page.reload();
      await page.waitForFunction(() => (window as unknown as { __firstPageAt?: number }).__firstPageAt !== undefined);
    });
    const reopenedMs = await page.evaluate(() => (window as unknown as { __firstPageAt: number }).__firstPageAt);
    const reopenedBlockMs = longest({ start: 0, end: reopenedMs }, await readTasks());
    log(`  opened again, where the time went (ms from navigation): ${await page.evaluate(timeline)}`);
    return {
      firstPage,
      history,
      reopenedMs,
      reopenedBlockMs,
      firstPageBlockMs: longest(firstPage),
      historyBlockMs: longest(history),
      transfer,
      chatScripts,
    };
  } finally {
    await context.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};
const ms = (n: number) => `${Math.round(n)} ms`;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const verdict = (ok: boolean) => (ok ? 'met' : '**not met**');
const blockText = (n: number) => (n === 0 ? 'none ≥ 50 ms' : ms(n));

function gitCommit(): string {
  const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/RESULTS.md'], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  return dirty ? `${head} (with uncommitted changes)` : head;
}

function report(results: Run[], chromiumVersion: string, started: Date, commit: string): string {
  const first = results.map((r) => r.firstPage.ms);
  const history = results.map((r) => r.history.ms);
  const reopened = results.map((r) => r.reopenedMs);
  const blocks = results.map((r) => Math.max(r.firstPageBlockMs, r.historyBlockMs, r.reopenedBlockMs));
  const transfer = results[0]?.transfer ?? { scripts: [], indexCacheControl: '' };
  const wire = transfer.scripts.reduce((n, s) => n + s.wireBytes, 0);
  const body = transfer.scripts.reduce((n, s) => n + s.bodyBytes, 0);
  const hashed = transfer.scripts.filter((s) => s.url.startsWith('/assets/'));
  const immutable =
    hashed.length > 0 && hashed.every((s) => /\bimmutable\b/.test(s.cacheControl) && /max-age=31536000/.test(s.cacheControl));
  const encodings = [...new Set(transfer.scripts.map((s) => s.encoding))].join(', ');
  const readable = Math.min(...results.map((r) => r.history.readable));
  const shown = Math.min(...results.map((r) => r.history.shown));
  const lateScripts = results[0]?.chatScripts ?? [];
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    `## Browser: 1,005 channel messages in Chromium`,
    '',
    `\`npm run bench:browser\` at commit ${commit} (bench/README.md says what it does and how each figure is read).`,
    '',
    `- date: ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    `- machine: ${os.cpus().length} cores (${cpu}), ${Math.round(os.totalmem() / 2 ** 30)} GB RAM, Linux ${os.release()}, Node ${process.versions.node}, Chromium ${chromiumVersion}; load average ${os.loadavg()[0]?.toFixed(1)} at the end`,
    `- server: \`server/dist/main.js\`, \`NODE_ENV=production\`, embedded database (PGlite); ${MESSAGES.toLocaleString('en-US')} general-channel messages from ${SENDERS} senders, each sender's one epoch wrapped for ${SENDERS + 1} members`,
    `- ${results.length} runs, each a fresh browser profile (empty cache and IndexedDB: every key seen for the first time); medians, [min–max]`,
    '',
    '| figure | measured | target | |',
    '|---|---|---|---|',
    `| "Decrypt & Access" → first page (${PAGE} messages) shown | ${ms(median(first))} [${ms(Math.min(...first))}–${ms(Math.max(...first))}] | ≤ ${targets.firstPageMs} ms | ${verdict(median(first) <= targets.firstPageMs)} |`,
    `| all ${MESSAGES.toLocaleString('en-US')} messages decrypted and in the list (${Math.ceil((MESSAGES - PAGE) / OLDER_PAGE)} older pages of ${OLDER_PAGE}, loaded by scrolling up) | ${ms(median(history))} [${ms(Math.min(...history))}–${ms(Math.max(...history))}] | ≤ ${targets.historyMs} ms | ${verdict(median(history) <= targets.historyMs)} |`,
    `| page opened again, session restored → first page shown from the browser's history cache (from navigation: page load, session check, cache) | ${ms(median(reopened))} [${ms(Math.min(...reopened))}–${ms(Math.max(...reopened))}] | ≤ ${targets.firstPageMs} ms | ${verdict(median(reopened) <= targets.firstPageMs)} |`,
    `| longest main-thread block (long tasks) during all three | ${blockText(median(blocks))} [${blockText(Math.min(...blocks))}–${blockText(Math.max(...blocks))}] | none over ${targets.blockMs} ms | ${verdict(Math.max(...blocks) <= targets.blockMs)} |`,
    `| initial JavaScript over the wire (login screen) | ${kb(wire)} (${kb(body)} uncompressed; ${transfer.scripts.length} files, ${encodings}) | ≤ ${targets.initialJsKB} KB | ${verdict(wire <= targets.initialJsKB * 1024)} |`,
    `| hashed assets cached immutably | ${immutable ? 'yes' : 'no'} (\`${[...new Set(hashed.map((s) => s.cacheControl))].join('`, `')}\`; index.html: \`${transfer.indexCacheControl}\`) | \`immutable\` | ${verdict(immutable)} |`,
    '',
    `Shown at the end of each run: at least ${shown} messages, ${readable} of them decrypted to their text.` +
      (lateScripts.length
        ? ` Loaded after sign-in: ${lateScripts.length} more scripts, ${kb(lateScripts.reduce((n, s) => n + s.wireBytes, 0))} over the wire.`
        : ''),
    '',
    'Per run (first page / all history / page opened again / longest block, ms): ' +
      results
        .map(
          (r) =>
            `${Math.round(r.firstPage.ms)} / ${Math.round(r.history.ms)} / ${Math.round(r.reopenedMs)} / ${Math.round(Math.max(r.firstPageBlockMs, r.historyBlockMs, r.reopenedBlockMs))}`,
        )
        .join('; '),
    '',
  ];
  return lines.join('\n');
}

const started = new Date();
// Read at the start, right after the build this run measures.
const commit = gitCommit();
log('seeding: server, members, messages');
const seeded = await seed();
let browser: Browser | null = null;
try {
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: chromiumArgs });
  const results: Run[] = [];
  for (let i = 0; i < runs; i++) {
    if (traceDir && i === 0) fs.mkdirSync(traceDir, { recursive: true });
    const run = await measureOnce(browser, seeded.server.url, seeded.readerToken, i === 0 ? traceDir : null);
    log(
      `run ${i + 1}: first page ${ms(run.firstPage.ms)} (longest block ${ms(run.firstPageBlockMs)}), history ${ms(run.history.ms)} (${run.history.shown} shown; longest block ${ms(run.historyBlockMs)}), opened again ${ms(run.reopenedMs)} (longest block ${ms(run.reopenedBlockMs)})`,
    );
    results.push(run);
  }
  const text = report(results, browser.version(), started, commit);
  process.stdout.write(`${text}\n`);
  if (resultsFile) fs.appendFileSync(resultsFile, `\n${text}`);
} finally {
  await browser?.close();
  await seeded.drop();
}
