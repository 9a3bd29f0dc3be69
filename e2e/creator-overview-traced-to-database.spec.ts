/**
 * The creator watches members join in the console: the cards follow, roles and the creator's own
 * account are set from the member list. Every figure the console last showed (cards, risk,
 * heatmap) is then traced to the database itself.
 */
import { overviewSchema, riskSchema } from '@enclave/protocol';
import {
  enterWrongKeys,
  expectCardsMatchApi,
  getJson,
  heatmapCells,
  HIGH,
  localHoursInNode,
  memberIsGone,
  openConsole,
  panel,
  riskRowsOf,
  WRONG_KEYS,
} from './support/creator-console';
import { readDatabase } from './support/database';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('creator-overview-traced-to-database');

const ACTIVE_HINT = 'Members not banned now who signed in or sent a message in the last 24 hours';

test('the console follows members joining, and every figure it shows is in the database', async ({ network }) => {
  const api = network.creatorApi;
  const page = await network.newCreatorPage();
  await page.goto('/super-admin');
  const wrongKeys = 2;
  await enterWrongKeys(page, WRONG_KEYS.slice(0, wrongKeys));
  await openConsole(page);
  expect((await expectCardsMatchApi(page, api)).totalUsers).toBe(0);

  const invites = await network.mintKeys(3);
  const [aliceKey, bobKey, daveKey] = invites;
  if (!aliceKey || !bobKey || !daveKey) throw new Error('too few keys minted');
  const members = [await network.join('alice', aliceKey), await network.join('bob', bobKey), await network.join('dave', daveKey)];
  const [alice, bob] = members as [(typeof members)[number], (typeof members)[number]];

  await test.step('members join as new users would; the cards and the list follow', async () => {
    await alice.page.getByLabel('Message', { exact: true }).fill('hello from alice');
    await alice.page.getByLabel('Message', { exact: true }).press('Enter');
    await expectToast(alice.page, 'Message Sent');

    // Presence is written per 250 ms tick: the last member to connect may not be in it yet.
    await expect.poll(async () => (await getJson(api, '/api/super-admin/overview', overviewSchema)).onlineUsers).toBe(3);
    const o = await expectCardsMatchApi(page, api);
    expect(o).toMatchObject({ totalUsers: 3, onlineUsers: 3, activeUsers: 3, bannedUsers: 0, totalMessages: 1 });
    await expect(page.locator('[data-member]')).toHaveCount(3);
    await expect(page.locator('[data-member="alice"] [data-member-state="online"]')).toBeVisible();
    await expect(page.locator('[data-member="alice"]')).toContainText(`${aliceKey.slice(0, 8)}…`);
    await page.getByRole('button', { name: "Mark dave as the creator's account" }).click();
    await expectToast(page, 'Creator Account Marked');
    await expect(page.locator('[data-member="dave"] [data-creator-account]')).toBeVisible();
    await page.getByRole('button', { name: 'Promote alice to admin' }).click();
    await expectToast(page, 'Role Updated', 'alice is now an admin.');
    await expect(page.locator('[data-member="alice"] [data-col="role"]')).toHaveText('admin');
    await page.getByRole('button', { name: 'Demote alice to member' }).click();
    await expectToast(page, 'Role Updated', 'alice is now a member.');
    await page.getByRole('button', { name: 'Ban bob', exact: true }).click();
    await expectToast(page, 'User Banned', 'bob has been banned from the network.');
    await memberIsGone(bob);
    await shot(page, '01-console-overview');
  });

  // The last figures the console shows, then the database they must come from.
  const final = await test.step('final figures on screen', async () => {
    const overview = await expectCardsMatchApi(page, api);
    expect(overview).toEqual(await getJson(api, '/api/super-admin/overview', overviewSchema));
    expect(overview.bannedUsers).toBe(1);
    // bob signed in today, but is banned now: "Active (24 h)" leaves him out, as its hint says.
    expect(overview.activeUsers).toBe(2);
    await expect(page.getByRole('group', { name: 'Active (24 h)' })).toContainText(ACTIVE_HINT);
    await page.getByRole('button', { name: 'Risk Visualizer' }).click();
    const risk = panel(page, 'Risk Visualizer');
    const fromApi = await getJson(api, '/api/super-admin/security/risk', riskSchema);
    await expect(risk.locator('[data-risk-member]')).toHaveCount(fromApi.members.length);
    const shown = {
      ips: await risk.locator('[data-risk-ip]').evaluateAll(riskRowsOf),
      members: await risk.locator('[data-risk-member]').evaluateAll(riskRowsOf),
    };
    await shot(page, '02-risk');
    await page.getByRole('button', { name: 'Security Heatmap' }).click();
    await panel(page, 'Security Heatmap').getByLabel('Event type').selectOption('master_key_failed');
    const failedKeyHours = await heatmapCells(page);
    await panel(page, 'Security Heatmap').getByLabel('Event type').selectOption('');
    const allHours = await heatmapCells(page);
    await shot(page, '03-heatmap');
    await page.getByRole('button', { name: 'Lock console' }).click();
    await expect(page.getByLabel('Master Key', { exact: true })).toHaveValue('');
    await expect(page.locator('[data-stat]')).toHaveCount(0);
    return { overview, shown, failedKeyHours, allHours };
  });

  await test.step('every figure traces to the database', async () => {
    await network.close();
    await readDatabase(network.server, async (db) => {
      const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows[0]!;
      const users = await one<{ total: number; banned: number; active: number }>(
        `select count(*)::int as total, count(*) filter (where is_banned)::int as banned,
                count(*) filter (where not is_banned and last_activity > now() - interval '24 hours')::int as active from users`,
      );
      const bob = await one<{ banned: boolean; recent: boolean }>(
        `select is_banned as banned, last_activity > now() - interval '24 hours' as recent from users where username = 'bob'`,
      );
      expect(bob).toEqual({ banned: true, recent: true });
      const messages = await one<{ n: number }>('select count(*)::int as n from messages');
      expect(final.overview).toMatchObject({
        totalUsers: users.total,
        bannedUsers: users.banned,
        activeUsers: users.active,
        totalMessages: messages.n,
      });

      // Repeats from one source within a minute are one row with a count (server/src/security/events.ts).
      const events = `coalesce((details->>'count')::int, 1)`;
      const failed = await db.query<{ hour: Date; count: number }>(
        `select date_trunc('hour', created_at) as hour, sum(${events})::int as count from security_events
          where type = 'master_key_failed' group by 1`,
      );
      expect(failed.rows.reduce((s, r) => s + r.count, 0)).toBe(wrongKeys);
      const byUtcHour = failed.rows.map((r) => ({ hour: new Date(r.hour).toISOString(), count: r.count }));
      expect(final.failedKeyHours).toEqual(localHoursInNode(byUtcHour));
      const allEvents = await one<{ n: number }>(
        `select sum(${events})::int as n from security_events where created_at > now() - interval '7 days'`,
      );
      expect(Object.values(final.allHours).reduce((a, b) => a + b, 0)).toBe(allEvents.n);

      const score = `sum((case severity when 'low' then 1 when 'medium' then 3 when 'high' then 7 else 15 end) * ${events})::int`;
      const ipRisk = await db.query<{ name: string; score: number; events: number }>(
        `select ip as name, ${score} as score, sum(${events})::int as events from security_events
          where ip is not null and actor is null and created_at > now() - interval '7 days' group by ip order by score desc`,
      );
      const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
      expect([...final.shown.ips].sort(byName)).toEqual(ipRisk.rows.map((r) => ({ ...r })).sort(byName));
      const local = ipRisk.rows.find((r) => r.name === '127.0.0.1');
      expect(local?.score).toBeGreaterThanOrEqual(HIGH * wrongKeys);
      const memberRisk = await db.query<{ name: string; score: number; events: number }>(
        `select u.username as name, ${score} as score, sum(${events})::int as events from security_events e
          join users u on u.id = e.user_id where e.actor is null and e.created_at > now() - interval '7 days' group by u.username`,
      );
      expect([...final.shown.members].sort(byName)).toEqual(memberRisk.rows.map((r) => ({ ...r })).sort(byName));

      const keys = await db.query<{ key: string; used: boolean }>('select key, used_at is not null as used from access_keys');
      for (const k of invites) expect(keys.rows.find((r) => r.key === k)).toMatchObject({ used: true });
      const marked = await db.query<{ username: string }>('select username from users where is_creator_account');
      expect(marked.rows.map((r) => r.username)).toEqual(['dave']);
    });
  });
});
