/**
 * The built server as production runs it: `node server/dist/main.js` in a process of its own,
 * configured by environment variables only, so that `kill -9` and SIGTERM are the real thing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TEST_MASTER_KEY } from '../../src/testing/harness';

/** This checkout's built server; an earlier release's is elsewhere (support/release.ts). */
export const currentDist = fileURLToPath(new URL('../../dist', import.meta.url));
const dist = (file: string) => path.join(currentDist, file);
const START_TIMEOUT_MS = 90_000;

/** Fails with what to do when the server was not built (`npm run test:faults` builds it first). */
export function assertBuilt(): void {
  if (!fs.existsSync(dist('main.js'))) throw new Error('server/dist/main.js is missing: run `npm run build -w server` first');
}

/** The environment of an instance: only what is given here, nothing inherited but PATH. */
export function instanceEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    MASTER_KEY: TEST_MASTER_KEY,
    LOG_LEVEL: 'warn',
    ...settings,
  };
}

export class Instance {
  /** Everything it wrote, stdout and stderr, line by line. */
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly child: ChildProcess;

  private constructor(
    readonly port: number,
    env: NodeJS.ProcessEnv,
    build: string,
  ) {
    this.child = spawn(process.execPath, ['--enable-source-maps', path.join(build, 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.child.stdout!, this.child.stderr!]) {
      let rest = '';
      stream.on('data', (d: Buffer) => {
        const parts = (rest + d.toString('utf8')).split('\n');
        rest = parts.pop() ?? '';
        this.lines.push(...parts);
      });
    }
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts an instance of `build` (a built server's folder, this checkout's by default) on `port` and waits until it listens. */
  static async start(port: number, env: NodeJS.ProcessEnv, build = currentDist): Promise<Instance> {
    if (build === currentDist) assertBuilt();
    const instance = new Instance(port, { ...env, PORT: String(port) }, build);
    const deadline = Date.now() + START_TIMEOUT_MS;
    // A JSON line since 1.1.0, a plain one before (an earlier release, support/release.ts).
    while (!instance.lines.some((l) => /^(\{.*"msg":")?Enclave is running at/.test(l))) {
      const exit = await Promise.race([instance.exited, new Promise<null>((r) => setTimeout(() => r(null), 50))]);
      if (exit) throw new Error(`the server exited at start (${JSON.stringify(exit)}):\n${instance.lines.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`the server did not start within ${START_TIMEOUT_MS} ms:\n${instance.lines.join('\n')}`);
    }
    return instance;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** `kill -9`, and waits until the process is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** Pino lines at level 50 (error) or above. */
  errors(): string[] {
    return this.lines.filter((l) => /"level":(50|60)/.test(l));
  }
}

/** Invite keys from the operator command (`npm run keys:generate`), run against this environment. */
export async function generateKeys(env: NodeJS.ProcessEnv, count: number): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [dist('generate-keys.js'), '--count', String(count)], { env });
  return stdout.split('\n').filter(Boolean);
}
