/**
 * `npm run lighthouse`: Lighthouse (the npm package, a devDependency) on the login screen of the
 * production build, in Debian's Chromium (CHROME_PATH, /usr/bin/chromium unless set), headless.
 * Builds first when the build is missing or older than the sources; starts the server on a
 * temporary data folder (an empty embedded database, removed afterwards). Prints each category's
 * score and every audit that lost points; exits 1 when accessibility or best practices is under
 * 100. LIGHTHOUSE_REPORT: a path for the full JSON report (none by default). Not part of the test
 * suite: the figures go to bench/RESULTS.md by hand.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, ServerProcess } from './soak/server-process';

/** Must score 100; `pwa` is measured too in a Lighthouse version that still has it (12 removed it). */
const REQUIRED = ['accessibility', 'best-practices'];
const OPTIONAL = ['pwa'];

type Audit = { id: string; title: string; score: number | null; scoreDisplayMode: string };
type Report = {
  lighthouseVersion: string;
  finalDisplayedUrl: string;
  categories: Record<string, { title: string; score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, Audit>;
  runtimeError?: { code: string; message: string };
};

const log = (line: string) => process.stdout.write(`${line}\n`);

/** The newest modification time under `dir` (files only). */
function newest(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  if (!fs.statSync(dir).isDirectory()) return fs.statSync(dir).mtimeMs;
  return Math.max(0, ...fs.readdirSync(dir).map((name) => newest(path.join(dir, name))));
}

/** Builds when either half of the build is missing or older than what it is built from. */
function buildIfNeeded(): void {
  const web = path.join(repoRoot, 'web/dist/index.html');
  const server = path.join(repoRoot, 'server/dist/main.js');
  const fresh = (out: string, sources: string[]) =>
    fs.existsSync(out) && fs.statSync(out).mtimeMs >= Math.max(...sources.map((s) => newest(path.join(repoRoot, s))));
  if (fresh(web, ['web/src', 'web/public', 'web/index.html', 'packages']) && fresh(server, ['server/src', 'packages'])) return;
  log('building (npm run build)...');
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
}

/** The categories this Lighthouse has, among the ones asked for. */
async function categoriesOfThisVersion(): Promise<string[]> {
  const { default: config } = (await import('lighthouse/core/config/default-config.js')) as { default: { categories?: object } };
  const known = Object.keys(config.categories ?? {});
  return [...REQUIRED, ...OPTIONAL].filter((c) => known.includes(c));
}

function runLighthouse(url: string, categories: string[], outFile: string): Report {
  const cli = path.join(repoRoot, 'node_modules/lighthouse/cli/index.js');
  execFileSync(
    process.execPath,
    [
      cli,
      url,
      `--only-categories=${categories.join(',')}`,
      '--output=json',
      `--output-path=${outFile}`,
      '--quiet',
      '--chrome-flags=--headless=new --no-sandbox --disable-gpu --no-first-run --disable-background-networking --disable-component-update --disable-sync',
    ],
    { env: { ...process.env, CHROME_PATH: process.env.CHROME_PATH ?? '/usr/bin/chromium' }, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return JSON.parse(fs.readFileSync(outFile, 'utf8')) as Report;
}

/** Scores out of 100 and the audits that cost points, one line each. */
function summarize(report: Report, categories: string[]): { lines: string[]; failed: string[] } {
  const lines = [`Lighthouse ${report.lighthouseVersion} on ${report.finalDisplayedUrl}`];
  const failed: string[] = [];
  for (const id of categories) {
    const category = report.categories[id];
    if (!category) continue;
    const score = Math.round((category.score ?? 0) * 100);
    lines.push(`${category.title.padEnd(16)} ${score}`);
    if (REQUIRED.includes(id) && score < 100) failed.push(`${category.title} ${score} < 100`);
    for (const ref of category.auditRefs) {
      const audit = report.audits[ref.id];
      if (audit && audit.score !== null && audit.score < 1 && ['binary', 'numeric'].includes(audit.scoreDisplayMode))
        lines.push(`  - ${audit.id}: ${audit.title}`);
    }
  }
  const absent = OPTIONAL.filter((c) => !categories.includes(c));
  if (absent.length) lines.push(`(no ${absent.join(', ')} category in this Lighthouse: installability is e2e/installable-app.spec.ts's)`);
  return { lines, failed };
}

buildIfNeeded();
const categories = await categoriesOfThisVersion();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-lighthouse-'));
let server: ServerProcess | null = null;
try {
  server = await ServerProcess.start(
    'dist',
    { DATA_DIR: dataDir, MASTER_KEY: randomBytes(64).toString('hex'), LOG_LEVEL: 'warn' },
    path.join(dataDir, 'server.log'),
    { probe: false },
  );
  const report = runLighthouse(`${server.url}/`, categories, path.join(dataDir, 'report.json'));
  if (process.env.LIGHTHOUSE_REPORT) fs.copyFileSync(path.join(dataDir, 'report.json'), process.env.LIGHTHOUSE_REPORT);
  if (report.runtimeError) throw new Error(`Lighthouse could not run: ${report.runtimeError.code} ${report.runtimeError.message}`);
  const { lines, failed } = summarize(report, categories);
  lines.forEach((l) => log(l));
  if (failed.length) {
    log(`FAILED: ${failed.join('; ')}`);
    process.exitCode = 1;
  }
} finally {
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
