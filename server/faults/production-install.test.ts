/**
 * The production install of docs/operations.md §1 ("Production install"), followed for real: this
 * commit's files in a scratch folder (`git archive HEAD`, what `git clone` and `git checkout v<version>`
 * leave less `.git`), `npm ci`, `npm run build`, `npm prune --omit=dev`; then the server started as
 * deploy/systemd/enclave@.service starts it (its ExecStart, WorkingDirectory and Environment lines,
 * read from the unit in this working tree), with the settings an /etc/enclave/enclave.env holds,
 * and as an unprivileged user when the test runs as root, so that a server that wrote into its
 * install folder would fail here as under ProtectSystem=strict. The unit itself is checked by
 * `systemd-analyze verify` and `systemd-analyze security`, and the system calls the server makes
 * (traced by strace) against its SystemCallFilter=; systemd is not PID 1 on a test machine, so
 * its sandbox is not exercised as such.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { routes } from '@enclave/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../src/testing/harness';
import { exportCommit, npm, npmCi } from './support/release';
import { freePort } from './support/services';

const run = promisify(execFile);
const repository = fileURLToPath(new URL('../..', import.meta.url));
const unitFile = path.join(repository, 'deploy/systemd/enclave@.service');
const systemdAnalyze = '/usr/bin/systemd-analyze';
const strace = '/usr/bin/strace';
if (!fs.existsSync(systemdAnalyze))
  console.warn('production install: the unit is not checked, systemd-analyze is absent (Debian: apt-get install systemd)');
if (!fs.existsSync(strace))
  console.warn("production install: the server's system calls are not traced, strace is absent (apt-get install strace)");
/** The unprivileged user the server runs as when the test is root: `nobody`, as `enclave` would be. */
const NOBODY = 65534;

/** The [Service] settings of the unit, `%i` standing for `port`; a key given twice keeps every value. */
function serviceSettings(port: number): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const raw of fs.readFileSync(unitFile, 'utf8').split('\n')) {
    const line = raw.trim();
    if (line.startsWith('[')) section = line;
    const eq = line.indexOf('=');
    if (section !== '[Service]' || line.startsWith('#') || eq < 0) continue;
    const key = line.slice(0, eq);
    settings.set(key, [...(settings.get(key) ?? []), line.slice(eq + 1).replaceAll('%i', String(port))]);
  }
  return settings;
}

/** The system calls `filter` names (`@system-service`, `pkey_alloc`), groups expanded as systemd-analyze lists them. */
async function systemCalls(filter: string): Promise<string[]> {
  if (!filter.startsWith('@')) return [filter];
  const { stdout } = await run(systemdAnalyze, ['syscall-filter', filter]);
  const names = stdout
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  return (await Promise.all(names.map(systemCalls))).flat();
}

/** What `npm start` runs (package.json "start"): the words after `node`. */
function npmStartArgs(dir: string): string[] {
  const start = (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start
    .slice(start.indexOf(' node ') + ' node '.length)
    .trim()
    .split(/\s+/);
}

describe('production install as docs/operations.md §1 gives it', () => {
  let release: { dir: string; remove(): void };
  let dataDir: string;
  /** strace's output, the service user's to write. */
  let traceDir: string;
  let server: ChildProcess | undefined;
  const lines: string[] = [];
  /** The system calls the server made, and the address families of its sockets, when strace traced it. */
  const [calls, families] = [new Set<string>(), new Set<string>()];
  const timings: Record<string, number> = {};
  const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
    const from = Date.now();
    const result = await work();
    timings[step] = Date.now() - from;
    return result;
  };

  beforeAll(async () => {
    release = await exportCommit('HEAD', 'enclave-production-install');
    await timed('npm ci', () => npmCi(release.dir));
    await timed('npm run build', () => npm(release.dir, 'run', '--silent', 'build'));
    await timed('npm prune --omit=dev', () =>
      npm(release.dir, 'prune', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'),
    );
    // The data folder as StateDirectory= makes it: owner-only, owned by the service's user.
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-state-'));
    traceDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-trace-'));
    if (process.getuid?.() === 0) {
      fs.chmodSync(release.dir, 0o755);
      for (const dir of [dataDir, traceDir]) fs.chownSync(dir, NOBODY, NOBODY);
    }
  }, 300_000);
  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGKILL');
      await new Promise((resolve) => server!.once('exit', resolve));
    }
    release?.remove();
    for (const dir of [dataDir, traceDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    console.log(`production install: ${JSON.stringify(timings)}`);
  });

  it('leaves the runtime dependencies only', () => {
    const modules = path.join(release.dir, 'node_modules');
    for (const dev of ['vitest', 'typescript', 'rolldown', 'vite', 'tsx', 'drizzle-kit'])
      expect(fs.existsSync(path.join(modules, dev)), `${dev} pruned`).toBe(false);
    for (const dependency of ['fastify', '@electric-sql/pglite', 'pg', 'ioredis'])
      expect(fs.existsSync(path.join(modules, dependency)), `${dependency} kept`).toBe(true);
    expect(fs.existsSync(path.join(release.dir, 'web/dist/index.html')), 'the web app built').toBe(true);
  });

  it("serves as the unit's ExecStart starts it: ready, the web app, its version, metrics, operator commands; SIGTERM stops it with 0", async () => {
    const [port, metricsPort] = [await freePort(), await freePort()];
    const unit = serviceSettings(port);
    const [execStart] = unit.get('ExecStart')!;
    const [node, ...args] = execStart!.split(/\s+/);
    expect(node).toBe('/usr/bin/node');
    expect(args, 'the unit runs what `npm start` runs').toEqual(npmStartArgs(release.dir));
    expect(unit.get('WorkingDirectory')).toEqual(['/opt/enclave']);

    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH };
    for (const setting of unit.get('Environment') ?? []) {
      const eq = setting.indexOf('=');
      env[setting.slice(0, eq)] = setting.slice(eq + 1);
    }
    expect(env).toMatchObject({ NODE_ENV: 'production', PORT: String(port), DATA_DIR: `/var/lib/enclave/${port}` });
    // What /etc/enclave/enclave.env holds for one instance behind nginx; StateDirectory='s folder is a scratch one here.
    Object.assign(env, {
      MASTER_KEY: TEST_MASTER_KEY,
      PUBLIC_ORIGIN: 'https://chat.example.org',
      TRUST_PROXY: '1',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'info',
      DATA_DIR: dataDir,
    });

    // The test's own node stands for /usr/bin/node (the same on a Debian host with Node installed).
    const asUser = process.getuid?.() === 0 ? ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--'] : [];
    /** A command as the service runs it: its user, its folder, its environment. */
    const asService = (argv: string[]) => ({
      file: [...asUser, ...argv][0]!,
      args: [...asUser, ...argv].slice(1),
      options: { cwd: release.dir, env },
    });
    const traceFile = path.join(traceDir, 'trace');
    const traced = fs.existsSync(strace) ? [strace, '-f', '-qq', '-o', traceFile] : [];
    const main = asService([...traced, process.execPath, ...args]);
    server = spawn(main.file, main.args, { ...main.options, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [server.stdout!, server.stderr!])
      stream.on('data', (d: Buffer) => lines.push(...d.toString('utf8').split('\n').filter(Boolean)));
    const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
    const url = `http://127.0.0.1:${port}`;

    const started = Date.now();
    // Until the readiness check answers 200; a fresh embedded database takes some seconds.
    for (;;) {
      if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${lines.join('\n')}`);
      if ((await fetch(`${url}${routes.ready.path}`).catch(() => null))?.status === 200) break;
      if (Date.now() - started > 90_000) throw new Error(`not ready within 90 s:\n${lines.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    timings['start until ready'] = Date.now() - started;

    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toBe(fs.readFileSync(path.join(release.dir, 'web/dist/index.html'), 'utf8'));

    const { version } = JSON.parse(fs.readFileSync(path.join(release.dir, 'package.json'), 'utf8')) as { version: string };
    expect(await (await fetch(`${url}${routes.healthGet.path}`)).json()).toMatchObject({ ok: true, version });
    const metrics = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('enclave_http_requests_total');

    // What the server keeps is in DATA_DIR, owner-only; the key came from the environment, none was generated.
    expect(fs.readdirSync(dataDir).sort()).toEqual(['db', 'operator.sock']);
    for (const entry of ['', 'db', 'operator.sock'])
      expect(fs.statSync(path.join(dataDir, entry)).mode & 0o077, `${entry || 'DATA_DIR'} owner-only`).toBe(0);

    if (asUser.length) expect(fs.statSync(path.join(dataDir, 'db')).uid, 'written by the service user').toBe(NOBODY);

    // Blocking an address reads the host's interfaces (a netlink socket), so that none of its own is blocked.
    for (const route of [routes.blockIp, routes.unblockIp]) {
      const answer = await fetch(`${url}${route.path}`, {
        method: 'POST',
        headers: { authorization: `SuperAdmin ${TEST_MASTER_KEY}`, origin: 'https://chat.example.org', 'content-type': 'application/json' },
        body: JSON.stringify({ ip: '203.0.113.9' }),
      });
      expect(answer.status, await answer.clone().text()).toBe(200);
    }

    // Operator commands as the service's user, with its settings (systemd-run in the docs), through the running server's socket.
    const operator = (script: string, ...rest: string[]) => {
      const command = asService([process.execPath, `server/dist/${script}`, ...rest]);
      return run(command.file, command.args, command.options);
    };
    expect((await operator('generate-keys.js', '--count', '2')).stdout.split('\n').filter(Boolean)).toHaveLength(2);
    const archive = (await operator('backup.js')).stdout.split('\n')[0]!;
    expect(path.dirname(archive)).toBe(path.join(dataDir, 'backups'));
    expect(fs.statSync(archive).mode & 0o077, 'the archive owner-only').toBe(0);

    // The server itself: under strace, the child is strace, and SIGTERM must reach node.
    const pid = (JSON.parse(lines.find((l) => l.startsWith('{'))!) as { pid: number }).pid;
    process.kill(pid, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(lines.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
    expect(lines.at(-1)).toContain('"msg":"stopped"');
    if (traced.length) {
      for (const line of fs.readFileSync(traceFile, 'utf8').split('\n')) {
        const call = /^\d+\s+([a-z0-9_]+)\(/.exec(line)?.[1];
        if (call) calls.add(call);
        const family = /^\d+\s+socket\((AF_[A-Z0-9]+)/.exec(line)?.[1];
        if (family) families.add(family);
      }
    }
  });

  it.skipIf(!fs.existsSync(systemdAnalyze) || !fs.existsSync(strace))(
    "makes only system calls and sockets the unit's SystemCallFilter= and RestrictAddressFamilies= allow",
    async () => {
      expect(calls.size, 'the server was traced').toBeGreaterThan(30);
      const [allowed, refused] = [new Set<string>(), new Set<string>()];
      for (const filter of serviceSettings(5000).get('SystemCallFilter') ?? []) {
        const names = (await Promise.all(filter.replace(/^~/, '').split(/\s+/).map(systemCalls))).flat();
        for (const name of names) (filter.startsWith('~') ? refused : allowed).add(name);
      }
      expect(allowed.size).toBeGreaterThan(100);
      expect([...calls].filter((call) => !allowed.has(call) || refused.has(call)).sort()).toEqual([]);
      timings['system calls'] = calls.size;
      // AF_NETLINK among them: blocking an address read the interfaces.
      expect(families).toContain('AF_NETLINK');
      expect(
        [...families].filter((f) => !serviceSettings(5000).get('RestrictAddressFamilies')!.join(' ').split(/\s+/).includes(f)),
      ).toEqual([]);
    },
  );

  it.skipIf(!fs.existsSync(systemdAnalyze))(
    'the unit passes systemd-analyze verify, with a stop timeout above the drain deadline',
    async () => {
      // An instance of the template, as `systemctl start enclave@5000` loads it. verify checks every
      // directive's name and value and that ExecStart's program exists; it does not look up User=.
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-unit-'));
      try {
        const instance = path.join(dir, 'enclave@5000.service');
        let text = fs.readFileSync(unitFile, 'utf8');
        if (!fs.existsSync('/usr/bin/node')) {
          console.warn(`/usr/bin/node is absent: the copy verified starts ${process.execPath} instead`);
          text = text.replace('ExecStart=/usr/bin/node ', `ExecStart=${process.execPath} `);
        }
        fs.writeFileSync(instance, text);
        const verify = await run(systemdAnalyze, ['verify', '--man=no', instance]).catch(
          (err: { code: number; stdout: string; stderr: string }) => err,
        );
        const complaints = `${verify.stdout}\n${verify.stderr}`.split('\n').filter((l) => l.includes('enclave@'));
        expect(complaints).toEqual([]);
        expect('code' in verify ? verify.code : 0).toBe(0);

        // Exposure as systemd scores it, 0 (locked down) to 10; the sandboxing directives hold it low.
        const security = await run(systemdAnalyze, ['security', '--offline=true', instance]).catch(
          (err: { stdout: string; stderr: string }) => err,
        );
        const exposure = Number(/Overall exposure level for enclave@5000\.service: ([\d.]+)/.exec(security.stdout)?.[1]);
        expect(exposure, security.stderr).toBeLessThanOrEqual(2);
        timings['exposure'] = exposure;
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }

      const drainMs = Number(
        /const DRAIN_DEADLINE_MS = ([\d_]+);/
          .exec(fs.readFileSync(path.join(repository, 'server/src/main.ts'), 'utf8'))![1]!
          .replaceAll('_', ''),
      );
      const [stopSeconds] = serviceSettings(5000).get('TimeoutStopSec')!;
      expect(Number(stopSeconds) * 1000).toBeGreaterThan(drainMs);
      expect(serviceSettings(5000).get('KillSignal')).toEqual(['SIGTERM']);
    },
  );
});
