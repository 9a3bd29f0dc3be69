/**
 * A member's sessions, their devices (docs/security.md §6): listed with a random public id, the
 * browser's User-Agent, first-seen and last-active times, never a hash or a token; ending one of
 * them, the others or all of them closes those sessions' sockets at once.
 */
import { deriveLoginKey } from '@enclave/crypto';
import { closeCodes, routes } from '@enclave/protocol';
import { randomUUID } from 'node:crypto';
import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { securityEvents, sessions } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember, TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';
import { MAX_LIVE_SESSIONS, SESSION_TOUCH_MS } from './sessions';

describe.each(backends)("a member's sessions (%s)", (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  const opened: TestSocket[] = [];

  afterAll(async () => {
    for (const s of opened) s.close();
  });

  /** Another browser of the member: a login of its own with this User-Agent; its cookie. */
  const signIn = async (m: TestMember, userAgent: string) => {
    const res = await new TestMember.Anonymous(suite.server.url).attempt(
      routes.login,
      { body: { loginKey: await deriveLoginKey(m.token) } },
      { 'user-agent': userAgent },
    );
    expect(res.status).toBe(200);
    return (res.headers.get('set-cookie') ?? '').split(';')[0]!;
  };
  const socketOf = async (cookie: string, userId: string) => {
    const s = new TestSocket(`${suite.server.url.replace(/^http/, 'ws')}/ws`, cookie, []);
    opened.push(s);
    await s.opened;
    s.send({ type: 'authenticate' });
    await s.waitFor((f) => f.type === 'authenticated' && f.userId === userId);
    return s;
  };
  const asCookie = (cookie: string) => ({ cookie });

  it('lists the live sessions by a random id, with the User-Agent cut to 200 characters, and never a hash or token', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const ann = await TestMember.join(suite.server.url, key!, 'ann');
    const long = `Mozilla/5.0 ${'x'.repeat(300)}`;
    const cookies = [await signIn(ann, 'Firefox/140'), await signIn(ann, long)];
    const { sessions: list } = await ann.call(routes.sessions, {});
    expect(list).toHaveLength(3);
    expect(list.filter((s) => s.current)).toHaveLength(1);
    expect(list.map((s) => s.userAgent)).toEqual(expect.arrayContaining(['Firefox/140', long.slice(0, 200)]));
    const rows = await suite.database.db.select().from(sessions).where(eq(sessions.userId, ann.id));
    const text = JSON.stringify(list);
    for (const row of rows) expect(text).not.toContain(row.id);
    for (const cookie of cookies) expect(text).not.toContain(cookie.split('=')[1]!);
    // The public id is the row's own random one, nothing taken from the hash.
    for (const s of list) {
      const row = rows.find((r) => r.publicId === s.id);
      expect(row).toBeDefined();
      expect(row!.id).not.toContain(s.id.replaceAll('-', '').slice(0, 8));
      expect(s.createdAt).toBe(row!.createdAt.toISOString());
      expect(s.lastActiveAt).toBe(row!.lastActiveAt.toISOString());
    }
    // From another of her browsers, that one is current.
    const other = await new TestMember.Anonymous(suite.server.url).call(routes.sessions, {}, asCookie(cookies[0]!));
    expect(other.sessions.find((s) => s.current)?.userAgent).toBe('Firefox/140');
  });

  it('revoke-others ends every other session and closes their sockets; this one stays', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const ben = await TestMember.join(suite.server.url, key!, 'ben');
    const [c1, c2] = [await signIn(ben, 'Phone'), await signIn(ben, 'Tablet')];
    const mine = await ben.connect();
    opened.push(mine);
    const [s1, s2] = [await socketOf(c1, ben.id), await socketOf(c2, ben.id)];
    expect(await ben.call(routes.revokeOtherSessions, {})).toEqual({ revoked: 2 });
    for (const s of [s1, s2]) {
      expect(await s.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
      expect((await s.closed).code).toBe(closeCodes.sessionEnded);
    }
    for (const c of [c1, c2])
      expect((await new TestMember.Anonymous(suite.server.url).attempt(routes.me, {}, asCookie(c))).status).toBe(401);
    expect(mine.ws.readyState).toBe(mine.ws.OPEN);
    expect(mine.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
    expect((await ben.call(routes.sessions, {})).sessions).toEqual([expect.objectContaining({ current: true })]);
  });

  it('ends one session by its id: its socket gets session_ended and closes; the others stay', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const dan = await TestMember.join(suite.server.url, key!, 'dan');
    const [phone, tablet] = [await signIn(dan, 'Phone'), await signIn(dan, 'Tablet')];
    const mine = await dan.connect();
    opened.push(mine);
    const [phoneSocket, tabletSocket] = [await socketOf(phone, dan.id), await socketOf(tablet, dan.id)];
    const target = (await dan.call(routes.sessions, {})).sessions.find((s) => s.userAgent === 'Phone')!;
    const res = await dan.attempt(routes.revokeSession, { params: { id: target.id } });
    expect(res.body).toEqual({ revoked: 1 });
    // Not this browser's session: its cookie stays.
    expect(res.headers.get('set-cookie')).toBeNull();
    // Pushed by the server: the phone's socket is told and closed with nothing more from the phone.
    expect(await phoneSocket.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
    expect((await phoneSocket.closed).code).toBe(closeCodes.sessionEnded);
    expect((await new TestMember.Anonymous(suite.server.url).attempt(routes.me, {}, asCookie(phone))).status).toBe(401);
    for (const s of [mine, tabletSocket]) {
      expect(s.ws.readyState).toBe(s.ws.OPEN);
      expect(s.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
    }
    const left = (await dan.call(routes.sessions, {})).sessions;
    expect(left.map((s) => s.id)).not.toContain(target.id);
    expect(left.map((s) => s.userAgent)).toContain('Tablet');
    expect(left).toHaveLength(2);
    // Ended once: a second time it is unknown.
    expect((await dan.attempt(routes.revokeSession, { params: { id: target.id } })).status).toBe(404);
    const [event] = await suite.database.db
      .select({ details: securityEvents.details, actor: securityEvents.actor })
      .from(securityEvents)
      .where(and(eq(securityEvents.userId, dan.id), eq(securityEvents.type, 'sessions_revoked')));
    expect(event).toEqual({ details: { scope: 'one', revoked: 1 }, actor: dan.id });
  });

  it("answers another member's session as it answers an unknown one, 404, and leaves it live", async () => {
    const [k1, k2] = await mintKeys(suite.database.db, { count: 2 });
    const eve = await TestMember.join(suite.server.url, k1!, 'eve');
    const fay = await TestMember.join(suite.server.url, k2!, 'fay');
    const faySocket = await fay.connect();
    opened.push(faySocket);
    const [fays] = (await fay.call(routes.sessions, {})).sessions;
    const theirs = await eve.attempt(routes.revokeSession, { params: { id: fays!.id } });
    const unknown = await eve.attempt(routes.revokeSession, { params: { id: randomUUID() } });
    expect(theirs.status).toBe(404);
    expect({ status: theirs.status, error: theirs.error }).toEqual({ status: unknown.status, error: unknown.error });
    expect((await fay.attempt(routes.me, {})).status).toBe(200);
    expect(faySocket.ws.readyState).toBe(faySocket.ws.OPEN);
    expect(faySocket.frames.filter((f) => f.type === 'session_ended')).toEqual([]);
  });

  it('ending its own session by id signs this browser out and clears the cookie', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const gus = await TestMember.join(suite.server.url, key!, 'gus');
    const mine = await gus.connect();
    opened.push(mine);
    const current = (await gus.call(routes.sessions, {})).sessions.find((s) => s.current)!;
    const res = await gus.attempt(routes.revokeSession, { params: { id: current.id } });
    expect(res.body).toEqual({ revoked: 1 });
    expect(res.headers.get('set-cookie')).toMatch(/^enclave_session=;/);
    expect((await mine.closed).code).toBe(closeCodes.sessionEnded);
  });

  it('marks a session active at most once per interval: a request after it writes the time, one within it does not', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const hal = await TestMember.join(suite.server.url, key!, 'hal');
    const lastActive = async () =>
      (await suite.database.db.select({ at: sessions.lastActiveAt }).from(sessions).where(eq(sessions.userId, hal.id)))[0]!.at;
    const before = await lastActive();
    await hal.call(routes.me, {});
    expect(await lastActive()).toEqual(before);
    // Older than the interval: the next request marks it.
    await suite.database.db
      .update(sessions)
      .set({ lastActiveAt: sql`now() - make_interval(secs => ${(SESSION_TOUCH_MS + 60_000) / 1000})` })
      .where(eq(sessions.userId, hal.id));
    const stale = await lastActive();
    const asked = new Date();
    await hal.call(routes.me, {});
    const touched = await lastActive();
    expect(touched.getTime()).toBeGreaterThan(stale.getTime() + SESSION_TOUCH_MS);
    // Marked by that request: not before it was sent.
    expect(touched.getTime()).toBeGreaterThanOrEqual(asked.getTime());
    expect((await hal.call(routes.sessions, {})).sessions[0]!.lastActiveAt).toBe(touched.toISOString());
    // Socket authentication marks a stale session too.
    await suite.database.db.update(sessions).set({ lastActiveAt: stale }).where(eq(sessions.userId, hal.id));
    const socket = await hal.connect();
    opened.push(socket);
    expect((await lastActive()).getTime()).toBeGreaterThan(stale.getTime() + SESSION_TOUCH_MS);
  });

  it('revoke-all ends every session, this one included, closes every socket and clears the cookie', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const cal = await TestMember.join(suite.server.url, key!, 'cal');
    const c1 = await signIn(cal, 'Laptop');
    const mine = await cal.connect();
    opened.push(mine);
    const s1 = await socketOf(c1, cal.id);
    const res = await cal.attempt(routes.revokeAllSessions, {});
    expect(res.body).toEqual({ revoked: 2 });
    expect(res.headers.get('set-cookie')).toMatch(/^enclave_session=;/);
    for (const s of [mine, s1]) {
      expect(await s.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
      expect((await s.closed).code).toBe(closeCodes.sessionEnded);
    }
    expect((await new TestMember.Anonymous(suite.server.url).attempt(routes.me, {}, asCookie(c1))).status).toBe(401);
    // Signing in again works: revoking is not a lock.
    expect((await cal.login()).status).toBe(200);
  });

  it(`keeps at most ${MAX_LIVE_SESSIONS} live sessions: each sign-in beyond ends the oldest, and its socket`, async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const ida = await TestMember.join(suite.server.url, key!, 'ida');
    const oldest = await ida.connect();
    opened.push(oldest);
    const cookies: string[] = [];
    for (let i = 0; i < MAX_LIVE_SESSIONS + 4; i++) cookies.push(await signIn(ida, `Browser ${i}`));
    // The join's session went first, its socket with it.
    expect(await oldest.waitFor((f) => f.type === 'session_ended')).toMatchObject({ reason: 'revoked' });
    expect((await oldest.closed).code).toBe(closeCodes.sessionEnded);
    expect((await ida.attempt(routes.me, {})).status).toBe(401);
    const newest = asCookie(cookies.at(-1)!);
    const { sessions: list } = await new TestMember.Anonymous(suite.server.url).call(routes.sessions, {}, newest);
    expect(list.map((s) => s.userAgent).sort()).toEqual(Array.from({ length: MAX_LIVE_SESSIONS }, (_, i) => `Browser ${i + 4}`).sort());
    for (const [i, cookie] of cookies.entries()) {
      expect((await new TestMember.Anonymous(suite.server.url).attempt(routes.me, {}, asCookie(cookie))).status).toBe(i < 4 ? 401 : 200);
    }

    // Sign-ins at once are taken in turn: still no more than the cap.
    await Promise.all(Array.from({ length: 10 }, (_, i) => signIn(ida, `Racer ${i}`)));
    const open = await suite.database.db
      .select({ id: sessions.id })
      .from(sessions)
      .where(and(eq(sessions.userId, ida.id), isNull(sessions.revokedAt), gt(sessions.expiresAt, new Date())));
    expect(open).toHaveLength(MAX_LIVE_SESSIONS);
  });

  it('logged no error', () => {
    expect(suite.server.logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });
});
