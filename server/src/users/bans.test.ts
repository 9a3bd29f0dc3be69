/**
 * Who may lift a ban (docs/security.md §7): the creator's bans only the creator; an admin's bans
 * any admin or the creator. A ban made by the creator cannot be overwritten by an admin either.
 */
import { errorTexts, routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { creatorHeaders, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

describe('bans remember who made them', () => {
  const suite = oneInstance('pglite', { config: { rateLimits: relaxedRateLimits } });
  let creator: InstanceType<typeof TestMember.Anonymous>;
  let admin: TestMember;
  let otherAdmin: TestMember;

  const join = async (name: string) => TestMember.join(suite.server.url, (await mintKeys(suite.database.db, { count: 1 }))[0]!, name);
  const promote = (m: TestMember) => creator.call(routes.setRole, { body: { userId: m.id, role: 'admin' } }, creatorHeaders);
  const banState = async (m: TestMember) => {
    const [row] = await suite.database.db
      .select({ isBanned: users.isBanned, bannedBy: users.bannedBy, bannedReason: users.bannedReason })
      .from(users)
      .where(eq(users.id, m.id));
    return row;
  };

  beforeAll(async () => {
    creator = new TestMember.Anonymous(suite.server.url);
    admin = await join('moderator');
    otherAdmin = await join('moderator2');
    await promote(admin);
    await promote(otherAdmin);
  });

  it('does not let an admin lift a ban the creator made on a banned admin, who stays out', async () => {
    const rogue = await join('rogueadmin');
    await promote(rogue);
    await creator.call(routes.creatorBan, { body: { userId: rogue.id, reason: 'abuse' } }, creatorHeaders);
    expect(await banState(rogue)).toEqual({ isBanned: true, bannedBy: 'creator', bannedReason: 'abuse' });

    const lifted = await admin.attempt(routes.adminUnban, { body: { userId: rogue.id } });
    expect(lifted.status).toBe(403);
    expect(lifted.error?.error).toMatch(/network creator/);
    expect(await banState(rogue)).toMatchObject({ isBanned: true, bannedBy: 'creator' });
    const login = await rogue.login();
    expect(login.status).toBe(403);
    expect(login.error).toEqual({ code: 'banned', error: errorTexts.banned });

    // The creator lifts it.
    await creator.call(routes.creatorUnban, { body: { userId: rogue.id } }, creatorHeaders);
    expect(await banState(rogue)).toEqual({ isBanned: false, bannedBy: null, bannedReason: null });
    expect((await rogue.login()).status).toBe(200);
  });

  it("does not let an admin lift (or take over) a creator's ban on a member", async () => {
    const member = await join('spammer');
    await creator.call(routes.creatorBan, { body: { userId: member.id, reason: 'spam' } }, creatorHeaders);
    expect((await admin.attempt(routes.adminUnban, { body: { userId: member.id } })).status).toBe(403);
    // Banning again would make the ban the admin's own, which the admin could then lift.
    expect((await admin.attempt(routes.adminBan, { body: { userId: member.id, reason: 'mine now' } })).status).toBe(403);
    expect((await admin.attempt(routes.adminUnban, { body: { userId: member.id } })).status).toBe(403);
    expect(await banState(member)).toEqual({ isBanned: true, bannedBy: 'creator', bannedReason: 'spam' });
    // The creator acting through /api/admin/* is still the creator.
    expect((await creator.attempt(routes.adminUnban, { body: { userId: member.id } }, creatorHeaders)).status).toBe(200);
    expect(await banState(member)).toMatchObject({ isBanned: false });
  });

  it("lets any admin, and the creator, lift an admin's ban", async () => {
    const member = await join('flooder');
    await admin.call(routes.adminBan, { body: { userId: member.id, reason: 'flood' } });
    expect(await banState(member)).toEqual({ isBanned: true, bannedBy: admin.id, bannedReason: 'flood' });
    await otherAdmin.call(routes.adminUnban, { body: { userId: member.id } });
    expect(await banState(member)).toEqual({ isBanned: false, bannedBy: null, bannedReason: null });
    expect((await member.login()).status).toBe(200);

    await admin.call(routes.adminBan, { body: { userId: member.id, reason: 'again' } });
    await creator.call(routes.creatorUnban, { body: { userId: member.id } }, creatorHeaders);
    expect(await banState(member)).toMatchObject({ isBanned: false });

    // The creator banning over an admin's ban makes it the creator's.
    await admin.call(routes.adminBan, { body: { userId: member.id, reason: 'third' } });
    await creator.call(routes.creatorBan, { body: { userId: member.id, reason: 'for good' } }, creatorHeaders);
    expect(await banState(member)).toEqual({ isBanned: true, bannedBy: 'creator', bannedReason: 'for good' });
    expect((await otherAdmin.attempt(routes.adminUnban, { body: { userId: member.id } })).status).toBe(403);
  });

  it('shows the reason in the member lists', async () => {
    const member = await join('troll');
    await admin.call(routes.adminBan, { body: { userId: member.id, reason: 'trolling' } });
    const monitored = await creator.call(routes.monitoredUsers, {}, creatorHeaders);
    expect(monitored.users.find((u) => u.id === member.id)).toMatchObject({ isBanned: true, bannedReason: 'trolling' });
  });
});
