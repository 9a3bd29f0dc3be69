/**
 * A member's sessions (docs/security.md §6): listed with a short public handle and the browser's
 * User-Agent, never a hash or a token; revoking the others or all of them closes those sessions'
 * sockets at once.
 */
import { deriveLoginKey } from '@enclave/crypto';
import { routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { sessions } from '../db/schema';
import { mintKeys } from '../keys/service';
import { CLOSE_SESSION_ENDED } from '../realtime/gateway';
import { backends, makeDatabase, relaxedRateLimits, startServer, type TestServer } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';

describe.each(backends)("a member's sessions (%s)", (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  let server: TestServer;
  const opened: TestSocket[] = [];

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    server = await startServer(database, { config: { rateLimits: relaxedRateLimits } });
  });
  afterAll(async () => {
    for (const s of opened) s.close();
    await server?.close();
    await database?.close();
    await drop?.();
  });

  /** Another browser of the member: a login of its own with this User-Agent; its cookie. */
  const signIn = async (m: TestMember, userAgent: string) => {
    const res = await new TestMember.Anonymous(server.url).attempt(routes.login, { body: { loginKey: await deriveLoginKey(m.token) } }, { 'user-agent': userAgent });
    expect(res.status).toBe(200);
    return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  };
  const socketOf = async (cookie: string, userId: string) => {
    const s = new TestSocket(`${server.url.replace(/^http/, 'ws')}/ws`, cookie, []);
    opened.push(s);
    await s.opened;
    s.send({ type: 'authenticate' });
    await s.waitFor((f) => f.type === 'authenticated' && f.userId === userId);
    return s;
  };
  const asCookie = (cookie: string) => ({ cookie });

  it('lists the live sessions by a short handle, with the User-Agent cut to 200 characters, and never a hash or token', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const ann = await TestMember.join(server.url, key!, 'ann');
    const long = `Mozilla/5.0 ${'x'.repeat(300)}`;
    const cookies = [await signIn(ann, 'Firefox/140'), await signIn(ann, long)];
    const { sessions: list } = await ann.call(routes.sessions, {});
    expect(list).toHaveLength(3);
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list.map((s) => s.userAgent)).toEqual(expect.arrayContaining(['Firefox/140', long.slice(0, 200)]));
    const rows = await database.db.select().from(sessions).where(eq(sessions.userId, ann.id));
    const text = JSON.stringify(list);
    for (const row of rows) expect(text).not.toContain(row.id);
    for (const cookie of cookies) expect(text).not.toContain(cookie.split('=')[1]!);
    for (const s of list) {
      expect(s.id).toMatch(/^[0-9a-f]{12}$/);
      expect(rows.some((r) => r.id.startsWith(s.id))).toBe(true);
    }
    // From another of her browsers, that one is current.
    const other = await new TestMember.Anonymous(server.url).call(routes.sessions, {}, asCookie(cookies[0]!));
    expect(other.sessions.find((s) => s.current)?.userAgent).toBe('Firefox/140');
  });

  it('revoke-others ends every other session and closes their sockets; this one stays', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const ben = await TestMember.join(server.url, key!, 'ben');
    const [c1, c2] = [await signIn(ben, 'Phone'), await signIn(ben, 'Tablet')];
    const mine = await ben.connect();
    opened.push(mine);
    const [s1, s2] = [await socketOf(c1, ben.id), await socketOf(c2, ben.id)];
    expect(await ben.call(routes.revokeOtherSessions, {})).toEqual({ revoked: 2 });
    for (const s of [s1, s2]) {
      expect(await s.waitFor((f) => f.type === 'session_ended', 2000)).toMatchObject({ reason: 'revoked' });
      expect((await s.closed).code).toBe(CLOSE_SESSION_ENDED);
    }
    for (const c of [c1, c2]) expect((await new TestMember.Anonymous(server.url).attempt(routes.me, {}, asCookie(c))).status).toBe(401);
    expect(mine.ws.readyState).toBe(mine.ws.OPEN);
    expect(mine.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
    expect((await ben.call(routes.sessions, {})).sessions).toEqual([expect.objectContaining({ current: true })]);
  });

  it('revoke-all ends every session, this one included, closes every socket and clears the cookie', async () => {
    const [key] = await mintKeys(database.db, { count: 1 });
    const cal = await TestMember.join(server.url, key!, 'cal');
    const c1 = await signIn(cal, 'Laptop');
    const mine = await cal.connect();
    opened.push(mine);
    const s1 = await socketOf(c1, cal.id);
    const res = await cal.attempt(routes.revokeAllSessions, {});
    expect(res.body).toEqual({ revoked: 2 });
    expect(res.headers.get('set-cookie')).toMatch(/^enclave_session=;/);
    for (const s of [mine, s1]) {
      expect(await s.waitFor((f) => f.type === 'session_ended', 2000)).toMatchObject({ reason: 'revoked' });
      expect((await s.closed).code).toBe(CLOSE_SESSION_ENDED);
    }
    expect((await new TestMember.Anonymous(server.url).attempt(routes.me, {}, asCookie(c1))).status).toBe(401);
    // Signing in again works: revoking is not a lock.
    expect((await cal.login()).status).toBe(200);
  });

  it('logged no error', () => {
    expect(server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
