/**
 * Runs the real server (`npm start`'s entry) as a child process on the built web app, on its own
 * port and data directory, and keeps everything it logs. Needs `npm run build` first.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { newDataDir } from './data-dir';

const root = path.resolve(import.meta.dirname, '../..');
/** The compiled server, started as `npm start` starts it (server/package.json), without npm in between. */
const serverEntry = path.join(root, 'server/dist/main.js');
const nodeArgs = ['--enable-source-maps', serverEntry];

/** The creator's master key in e2e runs (the server is started with MASTER_KEY). */
export const E2E_MASTER_KEY = '5e'.repeat(64);

/**
 * RATE_LIMIT_WINDOW_MS of e2e servers: the production counts (5 wrong tokens per browser...) over a few
 * seconds instead of a minute, so a spec that signs in often waits seconds, not minutes.
 */
export const E2E_RATE_LIMIT_WINDOW_MS = 5_000;

/** A port nothing listens on right now, on 127.0.0.1. */
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

export class EnclaveServer {
  /** The server's RATE_LIMIT_WINDOW_MS. */
  readonly rateLimitWindowMs: number;
  /** Further environment of the server (TRUST_PROXY, say). */
  private readonly extraEnv: Readonly<Record<string, string>>;
  private dir: string | null = null;
  /** Everything the server wrote to stdout and stderr, across restarts. */
  log = '';
  port = 0;
  private child: ChildProcess | null = null;

  constructor(opts: { rateLimitWindowMs?: number; env?: Record<string, string> } = {}) {
    this.rateLimitWindowMs = opts.rateLimitWindowMs ?? E2E_RATE_LIMIT_WINDOW_MS;
    this.extraEnv = opts.env ?? {};
  }

  /** A fresh network's data directory (data-dir.ts), made when first needed: listing tests makes none. */
  get dataDir(): string {
    return (this.dir ??= newDataDir());
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      PORT: String(this.port),
      HOST: '127.0.0.1',
      DATA_DIR: this.dataDir,
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      MASTER_KEY: E2E_MASTER_KEY,
      RATE_LIMIT_WINDOW_MS: String(this.rateLimitWindowMs),
      ...this.extraEnv,
    };
  }

  async start(): Promise<void> {
    if (!fs.existsSync(serverEntry)) throw new Error(`${serverEntry} is missing: run \`npm run build\` first`);
    if (!this.port) this.port = await freePort();
    const child = spawn(process.execPath, nodeArgs, { cwd: root, env: this.env() });
    this.child = child;
    // The log spans restarts: only this start's lines say that this start is listening.
    const since = this.log.length;
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        this.log += chunk.toString('utf8');
        if (this.log.includes(`running at http://127.0.0.1:${this.port}`, since)) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${this.log}`)));
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    this.child = null;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Mints invite keys with the operator command, as staff would (the server may be running). */
  generateKeys(count: number): string[] {
    const out = spawnSync('npm', ['run', '--silent', 'keys:generate', '--', '--count', String(count)], {
      cwd: root,
      env: this.env(),
      encoding: 'utf8',
    });
    if (out.status !== 0) throw new Error(`keys:generate failed: ${out.stderr}`);
    return out.stdout.trim().split('\n');
  }

  async dispose(): Promise<void> {
    await this.stop();
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
