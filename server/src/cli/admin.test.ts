/**
 * `npm run admin` as an operator runs it: its own process, against real servers through their
 * operator sockets. On PostgreSQL two instances meet through Redis, each with its own DATA_DIR and
 * socket; the command asks the first while the members are connected to the second, so a ban must
 * cross the bus to close their sockets.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { errorTexts, routes } from '@enclave/protocol';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../db/client';
import { securityEvents, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { OPERATOR_ACTOR } from '../operator/admin-commands';
import { askOperator, OperatorRefusal, operatorSocketPath, startOperatorSocket } from '../operator/socket';
import { requestOf } from './admin-request';
import { backends, creatorHeaders, makeDatabase, redisEnabled, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember } from '../testing/member';

const command = fileURLToPath(new URL('./admin.ts', import.meta.url));

type Run = { code: number | null; stdout: string; stderr: string };

/** Runs the command from its sources (tsx) with only `env` and PATH. */
function admin(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', command, ...args],
      { env: { PATH: process.env.PATH, NODE_ENV: 'production', ...env } },
      (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr }),
    );
  });
}

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-admin-'));

describe('admin arguments', () => {
  // Refused before any socket is asked: DATA_DIR points at nothing.
  const env = { DATA_DIR: path.join(os.tmpdir(), 'enclave-admin-never-asked') };

  it('names the reason for each bad command line', () => {
    const cases: [string[], RegExp][] = [
      [[], /a command is needed/],
      [['frobnicate'], /unknown command frobnicate/],
      [['members', '--bogus'], /Unknown option '--bogus'/],
      [['members', 'alice'], /members takes no argument/],
      [['members', '--reason', 'x'], /--reason is not an option of members/],
      [['ban'], /ban takes one username/],
      [['ban', 'alice', 'bob'], /ban takes one username/],
      [['ban', 'alice', '--reason'], /argument missing/],
      [['ban', 'not a name'], /Username may contain/],
      [['unban', 'alice', '--json'], /--json is not an option of unban/],
      [['promote'], /promote takes one username/],
      [['emergency'], /emergency takes on or off/],
      [['emergency', 'maybe'], /emergency takes on or off, not maybe/],
    ];
    for (const [args, reason] of cases) expect(() => requestOf(args), args.join(' ')).toThrow(reason);
    expect(requestOf(['ban', 'alice', '--reason', 'spam'])).toMatchObject({ path: '/ban', body: { username: 'alice', reason: 'spam' } });
  });

  it('refuses bad arguments with exit code 2, the reason and the usage on standard error, nothing on standard output', async () => {
    // One of each kind: no command, an option the parser refuses, a value the schema refuses.
    const cases: [string[], RegExp][] = [
      [[], /a command is needed/],
      [['members', '--bogus'], /Unknown option '--bogus'/],
      [['ban', 'not a name'], /Username may contain/],
    ];
    // One after the other: each process compiles the command's sources (tsx), which on a busy
    // machine is seconds each.
    for (const [args, reason] of cases) {
      const run = await admin(args, env);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: '' });
      expect(run.stderr).toMatch(reason);
      expect(run.stderr).toMatch(/^usage: npm run admin -- members \[--json\]$/m);
    }
    expect(fs.existsSync(env.DATA_DIR)).toBe(false);
  }, 120_000);

  it('says no server answers, and how to start one, with exit code 1', async () => {
    const dataDir = tempDir();
    try {
      const run = await admin(['members'], { DATA_DIR: dataDir });
      expect(run).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toContain(`no Enclave server answers on ${operatorSocketPath(dataDir)}`);
      expect(run.stderr).toMatch(/Start one \(npm start\) with this DATA_DIR/);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe.each(backends)('admin through the operator socket (%s)', (backend) => {
  const twoInstances = backend === 'postgres';
  // The command asks `a`; the members use `b` (the same instance on the embedded database).
  let a: TestServer;
  let b: TestServer;
  let database: Database;
  let drop: () => Promise<void>;
  const dirs: string[] = [];
  const operators: http.Server[] = [];
  let env: Record<string, string>;
  let alice: TestMember;
  let bob: TestMember;
  const creator = () => new TestMember.Anonymous(a.url);

  beforeAll(async () => {
    if (twoInstances && !redisEnabled) return;
    const made = await makeDatabase(backend);
    ({ database, drop } = made);
    const options = { redis: twoInstances, config: { rateLimits: relaxedRateLimits } };
    a = await startServer(database, options);
    b = twoInstances ? await startServer(database, options) : a;
    for (const server of twoInstances ? [a, b] : [a]) {
      const dir = tempDir();
      dirs.push(dir);
      operators.push((await startOperatorSocket(dir, server.app.ctx, null))!);
    }
    env = { DATA_DIR: dirs[0]!, ...(made.url ? { DATABASE_URL: made.url } : {}) };
    const [k1, k2] = await mintKeys(database.db, { count: 2 });
    alice = await TestMember.join(b.url, k1!, 'alice');
    bob = await TestMember.join(b.url, k2!, 'bob');
  });

  afterAll(async () => {
    for (const operator of operators) await new Promise((resolve) => operator.close(resolve));
    await a?.close();
    if (b !== a) await b?.close();
    await database?.close();
    await drop?.();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const auditOf = (type: string, userId?: string) =>
    database.db
      .select({ actor: securityEvents.actor, details: securityEvents.details, ip: securityEvents.ip })
      .from(securityEvents)
      .where(
        and(
          eq(securityEvents.type, type),
          eq(securityEvents.actor, OPERATOR_ACTOR),
          ...(userId ? [eq(securityEvents.userId, userId)] : []),
        ),
      );

  it.skipIf(twoInstances && !redisEnabled)('serves an owner-only socket on every instance', async () => {
    for (const dir of dirs) {
      expect(fs.statSync(operatorSocketPath(dir)).mode & 0o777).toBe(0o600);
      const run = await admin(['members'], { ...env, DATA_DIR: dir });
      expect(run).toMatchObject({ code: 0, stderr: '' });
    }
  });

  it.skipIf(twoInstances && !redisEnabled)('lists the members as a table, and as JSON with --json', async () => {
    const table = await admin(['members'], env);
    expect(table).toMatchObject({ code: 0, stderr: '' });
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^USERNAME\s+ROLE\s+STATUS\s+ONLINE\s+JOINED\s+LAST SEEN$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3))).toEqual([
      ['alice', 'member', 'active'],
      ['bob', 'member', 'active'],
    ]);

    const json = await admin(['members', '--json'], env);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout) as { username: string; role: string; isBanned: boolean; joinedAt: string }[];
    expect(list.map(({ username, role, isBanned }) => ({ username, role, isBanned }))).toEqual([
      { username: 'alice', role: 'member', isBanned: false },
      { username: 'bob', role: 'member', isBanned: false },
    ]);
    // The console's own list, field for field.
    expect(list).toEqual((await creator().call(routes.monitoredUsers, {}, creatorHeaders)).users);
  });

  it.skipIf(twoInstances && !redisEnabled)(
    "ban closes the member's socket on the other instance; they are refused until unban lets them back",
    async () => {
      const socket = await alice.connect();
      const banned = await admin(['ban', 'Alice', '--reason', 'spam'], env);
      expect(banned).toEqual({ code: 0, stdout: 'banned alice\n', stderr: '' });
      expect(await socket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'banned' });
      await socket.closed;
      // Their session is revoked; signing in again is refused as banned.
      expect((await alice.attempt(routes.me, {})).status).toBe(401);
      const login = await alice.login();
      expect(login.status).toBe(403);
      expect(login.error).toEqual({ code: 'banned', error: errorTexts.banned });
      // The creator's rights: a ban of the creator's, which admins cannot lift.
      const [row] = await database.db
        .select({ bannedBy: users.bannedBy, bannedReason: users.bannedReason })
        .from(users)
        .where(eq(users.id, alice.id));
      expect(row).toEqual({ bannedBy: 'creator', bannedReason: 'spam' });
      // The instance that banned closed none of the sockets when they were on the other one.
      expect(await auditOf('member_banned', alice.id)).toEqual([
        { actor: 'operator', details: expect.objectContaining({ reason: 'spam', socketsClosed: twoInstances ? 0 : 1 }), ip: null },
      ]);

      expect(await admin(['unban', 'alice'], env)).toEqual({ code: 0, stdout: 'unbanned alice\n', stderr: '' });
      expect((await alice.login()).status).toBe(200);
      expect((await alice.attempt(routes.me, {})).status).toBe(200);
      expect(await auditOf('member_unbanned', alice.id)).toHaveLength(1);
    },
  );

  it.skipIf(twoInstances && !redisEnabled)('promote gives the admin routes, demote takes them back', async () => {
    expect((await bob.attempt(routes.keyStats, {})).status).toBe(403);
    expect(await admin(['promote', 'bob'], env)).toEqual({ code: 0, stdout: 'bob is now an admin\n', stderr: '' });
    expect((await bob.attempt(routes.keyStats, {})).status).toBe(200);
    expect(await admin(['demote', 'bob'], env)).toEqual({ code: 0, stdout: 'bob is now a member\n', stderr: '' });
    expect((await bob.attempt(routes.keyStats, {})).status).toBe(403);
    expect((await auditOf('creator_role_changed', bob.id)).map((r) => r.details)).toEqual([{ role: 'admin' }, { role: 'member' }]);
  });

  it.skipIf(twoInstances && !redisEnabled)(
    "emergency on bans every member as the console's does; off lifts the emergency, the bans stay",
    async () => {
      const socket = await bob.connect();
      const on = await admin(['emergency', 'on'], env);
      expect(on).toMatchObject({ code: 0, stderr: '' });
      expect(on.stdout).toMatch(/^emergency on since \d{4}-\d\d-\d\dT[\d:.]+Z: 2 members banned, registration closed\n$/);
      expect(await socket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'banned' });
      for (const member of [alice, bob]) expect((await member.login()).status).toBe(403);
      expect((await creator().call(routes.overview, {}, creatorHeaders)).emergency.active).toBe(true);
      const [key] = await mintKeys(database.db, { count: 1 });
      expect((await creator().call(routes.validateKey, { body: { inviteKey: key! } })).valid).toBe(false);
      expect(await auditOf('emergency_shutdown')).toEqual([
        { actor: 'operator', details: expect.objectContaining({ banned: 2 }), ip: null },
      ]);

      expect(await admin(['emergency', 'off'], env)).toEqual({
        code: 0,
        stdout: 'emergency off: registration open again; the bans stay (unban members one by one)\n',
        stderr: '',
      });
      expect((await creator().call(routes.overview, {}, creatorHeaders)).emergency).toEqual({ active: false, since: null });
      expect((await bob.login()).status).toBe(403);
      expect(await auditOf('emergency_lifted')).toHaveLength(1);
      for (const name of ['alice', 'bob']) expect((await admin(['unban', name], env)).code).toBe(0);
      expect((await bob.login()).status).toBe(200);
    },
  );

  it.skipIf(twoInstances && !redisEnabled)('an unknown member: exit code 1 and the reason, nothing done', async () => {
    const run = await admin(['ban', 'ghost'], env);
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'admin: No member named ghost\n' });
    expect(await auditOf('member_banned')).toHaveLength(1);
  });

  it.skipIf(twoInstances && !redisEnabled)("refuses a malformed command body with 400 and zod's reason", async () => {
    const refusal = (body: unknown) =>
      askOperator(dirs[0]!, '/ban', body, z.unknown()).then(
        () => null,
        (err: unknown) => err,
      );
    expect(await refusal({ username: 'not a name' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/^username: Username may contain/),
    });
    expect(await refusal({ username: 'alice', extra: 1 })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/Unrecognized key/),
    });
    expect(await refusal({ username: 'alice', extra: 1 })).toBeInstanceOf(OperatorRefusal);
  });
});
