/**
 * The log read as a collector reads it: JSON lines, the health checks' polls at debug only, and
 * a generated master key on a terminal but never in a log line.
 */
import { Writable } from 'node:stream';
import { routes } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { mintKeys } from './keys/service';
import { announceMasterKey, createLogger, type Terminal } from './logging';
import { backends, makeDatabase, startServer } from './testing/harness';
import { TestMember } from './testing/member';

type Line = { level: number; msg: string; req?: { url: string }; reqId?: string };

const parse = (chunks: string[]): Line[] =>
  chunks
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);

/** The request ids of the lines about requests to `url`, at `level`. */
function requestsTo(lines: Line[], url: string, level: number): Set<string> {
  const ids = new Set(lines.filter((l) => l.req?.url === url).map((l) => l.reqId));
  return new Set(lines.filter((l) => l.level === level && l.reqId !== undefined && ids.has(l.reqId)).map((l) => l.reqId!));
}

describe.each(backends)('the request log (%s)', (backend) => {
  it('is JSON lines, with requests at info and the health and readiness polls at debug (written at LOG_LEVEL=debug, not at info)', async () => {
    const { database, drop } = await makeDatabase(backend);
    const server = await startServer(database, { config: { logLevel: 'debug' } });
    try {
      const [key] = await mintKeys(database.db, { count: 1 });
      const alice = await TestMember.join(server.url, key!, 'alice');
      await alice.call(routes.users, {});
      for (const method of ['HEAD', 'GET', 'GET']) expect((await fetch(`${server.url}${routes.health.path}`, { method })).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await fetch(`${server.url}${routes.ready.path}`)).status).toBe(200);
      expect((await fetch(`${server.url}${routes.users.path}`)).status).toBe(401);

      const lines = parse(server.logs);
      expect(requestsTo(lines, routes.users.path, 30).size).toBe(2);
      expect(requestsTo(lines, routes.health.path, 30).size).toBe(0);
      expect(requestsTo(lines, routes.health.path, 20).size).toBe(3);
      expect(requestsTo(lines, routes.ready.path, 30).size).toBe(0);
      expect(requestsTo(lines, routes.ready.path, 20).size).toBe(2);
    } finally {
      await server.close();
      await database.close();
      await drop();
    }
  });
});

describe('a generated master key', () => {
  const generated = { key: 'cd'.repeat(64), file: '/srv/enclave/master-key' };

  /** The log lines and what reached the terminal when the key is announced. */
  function announce(isTTY: boolean): { lines: Line[]; terminal: string } {
    const chunks: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString('utf8'));
        done();
      },
    });
    let terminal = '';
    const tty: Terminal = { isTTY, write: (text) => (terminal += text) };
    announceMasterKey(generated, createLogger('info', stream), tty);
    return { lines: parse(chunks), terminal };
  }

  it('is shown once on a terminal, and the log says where it is saved without it', () => {
    const { lines, terminal } = announce(true);
    expect(terminal).toContain(generated.key);
    expect(terminal).toContain(generated.file);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, file: generated.file, shownOnTerminal: true });
    expect(JSON.stringify(lines)).not.toContain(generated.key);
  });

  it('without a terminal (a service whose standard error is collected) is in its file only', () => {
    const { lines, terminal } = announce(false);
    expect(terminal).toBe('');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, file: generated.file, shownOnTerminal: false });
    expect(JSON.stringify(lines)).not.toContain(generated.key);
  });
});
