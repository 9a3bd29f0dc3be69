/**
 * The built server's output as a log collector sees it (`node server/dist/main.js`, standard output
 * and standard error piped, no terminal): JSON lines only on standard output, from the first start
 * to the stop; the start names the release and commit; health polls write nothing at info; and the
 * master key generated at a first start is in its file, on neither stream.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { routes } from '@enclave/protocol';
import { afterAll, describe, expect, it } from 'vitest';
import rootPackage from '../../package.json' with { type: 'json' };
import { freePort } from './support/services';
import { assertBuilt } from './support/instance';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

type Line = { level: number; msg: string; version?: string; commit?: string; req?: { url: string }; reqId?: string; setting?: string };

describe('the built server writes only JSON lines on standard output', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-logs-'));
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('from the first start (master key generated) to the stop after SIGTERM', async () => {
    assertBuilt();
    const port = await freePort();
    // No MASTER_KEY: this first start generates one. RATE_LIMIT_WINDOW_MS: a testing-aid warning.
    const child = spawn(process.execPath, ['--enable-source-maps', main], {
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'production',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        RATE_LIMIT_WINDOW_MS: '30000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect
      .poll(() => stdout.includes(`Enclave is running at http://127.0.0.1:${port}`) || child.exitCode !== null, { timeout: 90_000 })
      .toBe(true);

    const url = `http://127.0.0.1:${port}`;
    for (const method of ['HEAD', 'GET', 'GET']) expect((await fetch(`${url}${routes.health.path}`, { method })).status).toBe(200);
    expect((await fetch(`${url}${routes.ready.path}`)).status).toBe(200);
    expect((await fetch(`${url}${routes.users.path}`)).status).toBe(401);
    expect((await fetch(`${url}/`)).status).toBe(200);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const raw = stdout.split('\n').filter(Boolean);
    const lines = raw.map((l) => {
      try {
        return JSON.parse(l) as Line;
      } catch {
        throw new Error(`a line of standard output is not JSON: ${l}`);
      }
    });
    const messages = lines.map((l) => l.msg);
    // In the order of the process's life.
    const order = [
      'starting Enclave',
      'network creator master key generated',
      'RATE_LIMIT_WINDOW_MS',
      'Enclave is running at',
      'shutting down: draining',
      'stopped',
    ];
    const at = order.map((m) => messages.findIndex((msg) => msg.startsWith(m)));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect(at).toEqual([...at].sort((a, b) => a - b));

    const running = lines.find((l) => l.msg.startsWith('Enclave is running at'))!;
    expect(running.version).toBe(rootPackage.version);
    expect(running.commit).toMatch(/^([0-9a-f]{40}(-dirty)?|unknown)$/);
    expect(lines.find((l) => l.setting === 'RATE_LIMIT_WINDOW_MS')?.level).toBe(40);

    // Health and readiness polls: nothing at info; other requests as usual.
    const urls = new Map(lines.filter((l) => l.req).map((l) => [l.reqId, l.req!.url]));
    expect(lines.filter((l) => l.reqId && urls.get(l.reqId) === routes.health.path)).toEqual([]);
    expect(lines.filter((l) => l.reqId && urls.get(l.reqId) === routes.ready.path)).toEqual([]);
    expect(lines.filter((l) => l.reqId && urls.get(l.reqId) === routes.users.path)).toHaveLength(2);

    // The key is in its owner-only file, and on neither stream: neither is a terminal here.
    const key = fs.readFileSync(path.join(dataDir, 'master-key'), 'utf8').trim();
    expect(key).toMatch(/^[0-9a-f]{128}$/);
    expect(fs.statSync(path.join(dataDir, 'master-key')).mode & 0o777).toBe(0o600);
    expect(stdout).not.toContain(key);
    expect(stderr).not.toContain(key);
  });
});
