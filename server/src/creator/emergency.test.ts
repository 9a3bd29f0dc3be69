/**
 * The emergency shutdown at scale and against concurrent registrations (docs/security.md §10):
 * entering emergency mode and banning every member happen together or not at all, whatever the
 * number of members, and no registration ends up both accepted and unbanned.
 */
import { createAccount, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { errorTexts, GENERAL_CONVERSATION, routes, type RegisterRequest } from '@enclave/protocol';
import { and, count, eq, inArray, isNull, like, not, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversations, sessions, users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** Over PostgreSQL's 65,535 bind parameters even at one per member. */
const BULK_MEMBERS = 40_000;
const BULK_DMS = 1_000;
const RACE_ROUNDS = 3;
const RACE_PER_ROUND = 12;

type RacerAccount = Omit<RegisterRequest, 'inviteKey' | 'username'>;
let racerAccounts: Promise<RacerAccount[]> | undefined;
/**
 * The racing registrations' accounts, made once for every backend (each backend's database is its
 * own, so they never meet): an account's keys cost a few hundred milliseconds to make.
 */
function racers(): Promise<RacerAccount[]> {
  racerAccounts ??= (async () => {
    const accounts: RacerAccount[] = [];
    for (let i = 0; i < RACE_ROUNDS * RACE_PER_ROUND; i++) {
      const token = generateAccessToken();
      const account = await createAccount(token);
      accounts.push({ loginKey: await deriveLoginKey(token), ...account.publicIdentity, encryptedPrivateKey: account.encryptedPrivateKey });
    }
    return accounts;
  })();
  return racerAccounts;
}

describe.each(backends)('emergency shutdown (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let creator: InstanceType<typeof TestMember.Anonymous>;

  beforeAll(async () => {
    creator = new TestMember.Anonymous(suite.server.url);
  });

  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
  const lift = () => creator.call(routes.liftEmergency, {}, creatorHeaders);

  it(`bans ${BULK_MEMBERS.toLocaleString('en')} members, their sessions and their conversations in one go`, async () => {
    const own = await join('ownaccount');
    await creator.call(routes.setCreatorAccount, { body: { userId: own.id, isCreatorAccount: true } }, creatorHeaders);
    const alice = await join('alice');
    const socket = await alice.connect();

    // Members made in bulk by SQL, each with a live session; some of them in direct messages.
    await suite.database.db.execute(sql`
      INSERT INTO users (username, login_key_hash, encryption_public_key, signing_public_key, encrypted_private_key)
      SELECT 'bulk' || g, md5('bulk' || g), 'k', 'k', 'k' FROM generate_series(1, ${BULK_MEMBERS}) g`);
    await suite.database.db.execute(sql`
      INSERT INTO sessions (id, user_id, expires_at)
      SELECT md5('session' || id::text), id, now() + interval '1 day' FROM users WHERE username LIKE 'bulk%'`);
    await suite.database.db.execute(sql`
      INSERT INTO conversations (id, membership_version)
      SELECT 'dm:' || least(u.id::text, ${own.id}) || ':' || greatest(u.id::text, ${own.id}), 1
      FROM users u WHERE u.username LIKE 'bulk%' ORDER BY u.username LIMIT ${BULK_DMS}`);
    const [general] = await suite.database.db.select().from(conversations).where(eq(conversations.id, GENERAL_CONVERSATION));

    const t0 = performance.now();
    const res = await creator.attempt(routes.emergencyShutdown, {}, creatorHeaders);
    const ms = Math.round(performance.now() - t0);
    console.log(`[${backend}] emergency shutdown of ${BULK_MEMBERS + 1} members: ${ms} ms`);

    expect(res.status, JSON.stringify(res.error)).toBe(200);
    expect(res.body).toMatchObject({ banned: BULK_MEMBERS + 1, emergency: { active: true } });
    const [unbanned] = await suite.database.db.select({ n: count() }).from(users).where(eq(users.isBanned, false));
    expect(unbanned?.n).toBe(1);
    const [bannedByCreator] = await suite.database.db
      .select({ n: count() })
      .from(users)
      .where(and(eq(users.isBanned, true), eq(users.bannedBy, 'creator'), eq(users.bannedReason, 'Emergency shutdown')));
    expect(bannedByCreator?.n).toBe(BULK_MEMBERS + 1);
    const [liveBulkSessions] = await suite.database.db
      .select({ n: count() })
      .from(sessions)
      .innerJoin(users, eq(users.id, sessions.userId))
      .where(and(like(users.username, 'bulk%'), isNull(sessions.revokedAt)));
    expect(liveBulkSessions?.n).toBe(0);
    const dms = await suite.database.db
      .select()
      .from(conversations)
      .where(not(eq(conversations.id, GENERAL_CONVERSATION)));
    expect(dms).toHaveLength(BULK_DMS);
    expect(dms.every((c) => c.membershipVersion === 2)).toBe(true);
    const [generalAfter] = await suite.database.db.select().from(conversations).where(eq(conversations.id, GENERAL_CONVERSATION));
    expect(generalAfter!.membershipVersion).toBeGreaterThan(general!.membershipVersion);
    await socket.waitFor((f) => f.type === 'session_ended' && f.reason === 'banned');
    expect((await own.login()).status).toBe(200);

    await lift();
    await suite.database.db.delete(users).where(like(users.username, 'bulk%'));
  }, 120_000);

  it('refuses or bans every registration that races a shutdown, never leaves one unbanned', async () => {
    const ROUNDS = RACE_ROUNDS;
    const PER_ROUND = RACE_PER_ROUND;
    const keys = await mintKeys(suite.database.db, { count: ROUNDS * PER_ROUND });
    const accounts = await racers();
    const bodies: RegisterRequest[] = keys.map((inviteKey, i) => ({ inviteKey, username: `racer${i}`, ...accounts[i]! }));
    const anon = new TestMember.Anonymous(suite.server.url);
    const outcomes: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = bodies.slice(round * PER_ROUND, (round + 1) * PER_ROUND);
      // Not waits but the race itself: registrations 3 ms apart, the shutdown amid them.
      const registrations = batch.map((body, i) =>
        new Promise((r) => setTimeout(r, i * 3)).then(() => anon.attempt(routes.register, { body })),
      );
      const shutdown = new Promise((r) => setTimeout(r, (PER_ROUND / 2) * 3)).then(() =>
        creator.call(routes.emergencyShutdown, {}, creatorHeaders),
      );
      const [results] = await Promise.all([Promise.all(registrations), shutdown]);
      for (const r of results) {
        expect([201, 403], JSON.stringify(r.error)).toContain(r.status);
        outcomes.push(r.status);
        if (r.status === 403) expect(r.error?.error).toMatch(/emergency mode/);
      }
      const made = await suite.database.db
        .select({ username: users.username, isBanned: users.isBanned })
        .from(users)
        .where(
          inArray(
            users.username,
            batch.map((b) => b.username),
          ),
        );
      expect(made.filter((u) => !u.isBanned)).toEqual([]);
      expect(made).toHaveLength(results.filter((r) => r.status === 201).length);
      await lift();
    }
    console.log(
      `[${backend}] racing registrations: ${outcomes.filter((s) => s === 201).length} accepted then banned, ${outcomes.filter((s) => s === 403).length} refused`,
    );
  }, 120_000);

  it('key validation says registration is closed while in emergency mode, for every key, and opens again when lifted', async () => {
    const [fresh] = await mintKeys(suite.database.db, { count: 1 });
    const anon = new TestMember.Anonymous(suite.server.url);
    const validate = (inviteKey: string) => anon.call(routes.validateKey, { body: { inviteKey } });
    expect(await validate(fresh!)).toMatchObject({ valid: true, reason: errorTexts.keyValid });

    await creator.call(routes.emergencyShutdown, {}, creatorHeaders);
    const closed = { valid: false, reason: errorTexts.registrationClosed, keyInfo: null, registrationClosed: true };
    expect(await validate(fresh!)).toEqual(closed);
    // Whatever the key: unknown ones answer the same, so nothing about keys is learnt meanwhile.
    expect(await validate('ab'.repeat(32))).toEqual(closed);
    // And registering with the key the first step refused is refused with the same text.
    const account = await createAccount(generateAccessToken());
    const body = {
      inviteKey: fresh!,
      username: 'latecomer',
      loginKey: 'c'.repeat(64),
      ...account.publicIdentity,
      encryptedPrivateKey: account.encryptedPrivateKey,
    };
    const refused = await anon.attempt(routes.register, { body });
    expect(refused.status).toBe(403);
    expect(refused.error?.error).toBe(errorTexts.registrationClosed);

    await lift();
    const reopened = await validate(fresh!);
    expect(reopened).toMatchObject({ valid: true, reason: errorTexts.keyValid });
    expect(reopened.registrationClosed).toBeUndefined();
  });
});
