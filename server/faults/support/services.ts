/**
 * Private PostgreSQL and Redis servers for the fault tests, which stop and restart them: never the
 * shared ones at 127.0.0.1:5432 and :6379 that other test files use. Each lives in a temporary
 * directory, on a free port, and is removed afterwards.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { backends, redisEnabled } from '../../src/testing/harness';

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const exists = (file: string) => fs.existsSync(file);

/** The folder of initdb, pg_ctl and postgres: `pg_config --bindir`, else Debian's newest. */
function postgresBinDir(): string | null {
  const has = (dir: string) => ['initdb', 'pg_ctl', 'postgres'].every((b) => exists(path.join(dir, b)));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (has(dir)) return dir;
  } catch {
    // no pg_config: look where Debian puts the servers
  }
  const root = '/usr/lib/postgresql';
  const versions = exists(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.map((v) => path.join(root, v, 'bin')).find(has) ?? null;
}

function redisServerBin(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const file = path.join(dir, 'redis-server');
    if (dir && exists(file)) return file;
  }
  return null;
}

/**
 * Whether a fault suite that needs these services runs. Left out by TEST_BACKENDS (no postgres)
 * or TEST_REDIS=0, it is skipped like the other production-path tests. Wanted but without the
 * binaries it is skipped with the reason, except with CI=true, where it runs and fails on `missing`.
 */
export function plan(needs: { postgres?: boolean; redis?: boolean }): { run: boolean; missing: string[] } {
  if ((needs.postgres && !backends.includes('postgres')) || (needs.redis && !redisEnabled)) return { run: false, missing: [] };
  const missing: string[] = [];
  if (needs.postgres && !postgresBinDir())
    missing.push('PostgreSQL server binaries (initdb, pg_ctl, postgres: pg_config --bindir or /usr/lib/postgresql/*/bin)');
  if (needs.redis && !redisServerBin()) missing.push('redis-server (on PATH)');
  if (missing.length && process.env.CI !== 'true') {
    console.warn(`fault tests skipped, missing: ${missing.join('; ')}`);
    return { run: false, missing };
  }
  return { run: true, missing };
}

/** Runs PostgreSQL's tools as the `postgres` user when we are root (they refuse root). */
function asPostgres(file: string, args: string[]): string {
  const root = process.getuid?.() === 0;
  return execFileSync(root ? 'runuser' : file, root ? ['-u', 'postgres', '--', file, ...args] : args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export type Postgres = {
  /** Superuser URL of database `postgres`. */
  adminUrl: string;
  /** A new database; its URL. */
  createDatabase(name: string): Promise<string>;
  /** `pg_ctl stop -m fast`: sessions are ended, the server is down until `start`. */
  stop(): void;
  start(): void;
  /** Stops it for good and removes its files. */
  remove(): void;
};

export async function startPostgres(): Promise<Postgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-faults-pg-'));
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  asPostgres(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  // Durability settings stay as shipped: a fault test must not lose what PostgreSQL would keep.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`;
  const pgCtl = (...args: string[]) => asPostgres(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), ...args]);
  const start = () => void pgCtl('-o', options, '-w', 'start');
  start();
  const adminUrl = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    adminUrl,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`CREATE DATABASE ${name}`);
      await client.end();
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop: () => void pgCtl('-m', 'fast', '-w', 'stop'),
    start,
    remove() {
      try {
        pgCtl('-m', 'immediate', '-w', 'stop');
      } catch {
        // already stopped
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type RedisServer = {
  url: string;
  /** Ends the process (SIGKILL: nothing is saved, as with `--save ''` anyway). */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  remove(): Promise<void>;
};

export async function startRedis(): Promise<RedisServer> {
  const bin = redisServerBin();
  if (!bin) throw new Error('redis-server not found');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-faults-redis-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    const c = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child = c;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      c.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${out}`)));
    });
  };
  const stop = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
    child = null;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async remove() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
