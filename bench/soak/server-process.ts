/**
 * The server under soak as a process of its own: the built production entry (`server/dist/main.js`,
 * as `npm start` runs it) or, for the short soak in the test suite, the sources through tsx. What
 * it measures is read from outside where Linux allows: RSS from /proc/<pid>/status, open
 * connections from /proc/<pid>/fd and /proc/<pid>/net/tcp. Heap and event-loop delay can only be
 * read inside, by bench/server-probe.mjs, preloaded and asked over the IPC channel.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '../..');
const probe = path.join(repoRoot, 'bench/server-probe.mjs');

/** The server's configuration (docs/operations.md §2): the soak sets what it needs, none is inherited. */
const SERVER_VARIABLES = [
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'REDIS_URL',
  'REDIS_PREFIX',
  'NODE_ENV',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'PUBLIC_ORIGIN',
  'MASTER_KEY',
  'RATE_LIMIT_WINDOW_MS',
];

/**
 * `dist`: the production bundle (`npm run build -w server` first), or another bundle at `main`;
 * `source`: server/src via tsx; `script`: another server through tsx (the load bench's bare ws ceiling).
 */
export type ServerEntry = 'dist' | 'source' | { main: string } | { script: string };

/** `probe`: preload bench/server-probe.mjs (true); `npm`: run `npm start` instead of node itself; `port`: a free port chosen before. */
export type StartOptions = { probe?: boolean; npm?: boolean; port?: number };

function entryArgs(entry: ServerEntry): string[] {
  if (entry === 'source') return ['--import', 'tsx', path.join(repoRoot, 'server/src/main.ts')];
  if (typeof entry === 'object' && 'script' in entry) return ['--import', 'tsx', entry.script];
  const main = entry === 'dist' ? path.join(repoRoot, 'server/dist/main.js') : entry.main;
  if (!fs.existsSync(main)) throw new Error(`${main} is missing: run \`npm run build -w server\` first`);
  return ['--enable-source-maps', main];
}

/** What the probe answers, in bytes and milliseconds. */
export type ProbeAnswer = {
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  lagMs: { mean: number; p50: number; p99: number; max: number };
};

const probeAnswer = (value: unknown, id: number): value is ProbeAnswer & { gcError: string | null } =>
  typeof value === 'object' &&
  value !== null &&
  (value as { type?: unknown }).type === 'soak:sample' &&
  (value as { id?: unknown }).id === id;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

export class ServerProcess {
  private nextId = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
    readonly logFile: string,
    private readonly exited: Promise<number | null>,
    /** `performance.now()` at the spawn and when the "running at" line was read. */
    readonly spawnedAt: number,
    readonly runningAt: number,
  ) {}

  get pid(): number {
    if (this.child.pid === undefined) throw new Error('the server has no pid');
    return this.child.pid;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Starts the server with `env` on a free port; resolves once it listens. Its output goes to `logFile`. */
  static async start(entry: ServerEntry, env: Record<string, string>, logFile: string, options: StartOptions = {}): Promise<ServerProcess> {
    const port = options.port ?? (await freePort());
    const main = entryArgs(entry);
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SERVER_VARIABLES.includes(name)));
    const [command, args] = options.npm
      ? ['npm', ['start']]
      : [process.execPath, options.probe === false ? main : ['--expose-gc', '--import', probe, ...main]];
    const spawnedAt = performance.now();
    const child = spawn(command, args, {
      cwd: repoRoot,
      env: { ...inherited, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), ...env },
      stdio: options.npm || options.probe === false ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    const log = fs.createWriteStream(logFile);
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let head = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        log.write(chunk);
        if (head.length < 64 * 1024) head += chunk.toString('utf8');
        if (head.includes(`running at http://127.0.0.1:${port}`)) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      void exited.then((code) => reject(new Error(`the server exited with ${code} before listening:\n${head}`)));
    });
    const runningAt = performance.now();
    void exited.then(() => log.end());
    return new ServerProcess(child, port, logFile, exited, spawnedAt, runningAt);
  }

  /** Heap and event-loop delay since the last sample, from the probe; after a full GC with `gc`. */
  /** The probe's figures, after a full collection when `gc`; with `snapshot`, a heap snapshot written to that file too. */
  async probe(gc: boolean, snapshot?: string): Promise<ProbeAnswer> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.child.off('message', onMessage);
        reject(new Error('the server probe did not answer within 60 s'));
      }, 60_000);
      const onMessage = (value: unknown) => {
        if (!probeAnswer(value, id)) return;
        clearTimeout(timer);
        this.child.off('message', onMessage);
        if (value.gcError) reject(new Error(value.gcError));
        else resolve(value);
      };
      this.child.on('message', onMessage);
      this.child.send({ type: 'soak:sample', id, gc, snapshot });
    });
  }

  /** Resident set size, from /proc/<pid>/status. */
  rssBytes(): number {
    const status = fs.readFileSync(`/proc/${this.pid}/status`, 'utf8');
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
    if (kb === undefined) throw new Error('no VmRSS in /proc status');
    return Number(kb) * 1024;
  }

  /** utime + stime of the process, in seconds (/proc/<pid>/stat, fields 14 and 15). */
  cpuSeconds(): number {
    const stat = fs.readFileSync(`/proc/${this.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return (Number(fields[11]) + Number(fields[12])) / ticks;
  }

  /**
   * TCP connections the server process holds open on its port (HTTP keep-alive and WebSockets):
   * its socket descriptors (/proc/<pid>/fd) matched against the established connections of its
   * network namespace (/proc/<pid>/net/tcp*) whose local port is the server's. Database
   * connections and the listening socket are not counted.
   */
  connections(): number {
    const inodes = new Set<string>();
    for (const fd of fs.readdirSync(`/proc/${this.pid}/fd`)) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/${this.pid}/fd/${fd}`);
      } catch {
        continue; // closed while we looked
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode) inodes.add(inode);
    }
    const port = this.port.toString(16).toUpperCase().padStart(4, '0');
    const ESTABLISHED = '01';
    let count = 0;
    for (const table of ['tcp', 'tcp6']) {
      const lines = fs.readFileSync(`/proc/${this.pid}/net/${table}`, 'utf8').trim().split('\n').slice(1);
      for (const line of lines) {
        const cols = line.trim().split(/\s+/);
        const [, local = '', , state, , , , , , inode = ''] = cols;
        if (local.endsWith(`:${port}`) && state === ESTABLISHED && inodes.has(inode)) count += 1;
      }
    }
    return count;
  }

  /** SIGTERM, as an operator stops it; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }

  /** Lines of the server's log at level error (50) or above: pino's JSON and anything not JSON on stderr. */
  errorLines(): string[] {
    return fs
      .readFileSync(this.logFile, 'utf8')
      .split('\n')
      .filter((line) => {
        if (!line.trim()) return false;
        try {
          const level = (JSON.parse(line) as { level?: unknown }).level;
          return typeof level === 'number' && level >= 50;
        } catch {
          return /error/i.test(line);
        }
      });
  }
}
