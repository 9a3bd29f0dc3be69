/**
 * The scaled-out deployment of docs/operations.md §5, as members and the creator live it: two
 * instances of the built server on one PostgreSQL database and one Redis, behind Debian's nginx
 * with the repository's own configuration (deploy/nginx/enclave-proxy.conf), one address for
 * everyone. Alice's and Bob's sockets are on different instances (the database's presence rows
 * and each instance's own log say so), and what one instance does the other's members see at once:
 * chat, presence, a blocked address, a ban, emergency mode.
 */
import { errorTexts, routes, sessionResponseSchema } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { memberIsGone, openConsole, stat } from './support/creator-console';
import type { Member } from './support/members';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';
import { expect, MEMBERS_ADDRESS, scaleOutSkipReason, test, type TwoInstances } from './support/two-instances';

const shot = storyShots('two-instances-behind-nginx');
const skip = scaleOutSkipReason();
test.skip(skip !== null, `skipped: ${skip}`);

const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const connection = (m: Member) => m.page.locator('[data-connection-state]');

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

async function userId(m: Member): Promise<string> {
  const res = await m.page.request.get(routes.me.path);
  return sessionResponseSchema.parse(await res.json()).user.id;
}

/** The presence rows of a member: one per instance holding a socket of theirs. */
async function instancesOf(cluster: TwoInstances, id: string): Promise<string[]> {
  const rows = await cluster.database.query<{ instance_id: string }>('SELECT instance_id FROM presence WHERE user_id = $1', [id]);
  return rows.map((r) => r.instance_id);
}

/** Waits until the member's socket is on exactly one instance, and says which. */
async function instanceOf(cluster: TwoInstances, id: string): Promise<string> {
  await expect.poll(() => instancesOf(cluster, id).then((rows) => rows.length)).toBe(1);
  return (await instancesOf(cluster, id))[0]!;
}

/**
 * nginx deals connections round robin, so where a socket lands depends on every request before it.
 * Until Bob's socket is on the other instance than Alice's, his browser drops offline and comes
 * back (his socket reconnects, as after a network blip), with one request through nginx in
 * between every other time, so that the turn of his upgrade changes.
 */
async function splitAcrossInstances(cluster: TwoInstances, alice: Member, bob: Member): Promise<[string, string]> {
  const [aliceId, bobId] = [await userId(alice), await userId(bob)];
  const onAlice = await instanceOf(cluster, aliceId);
  for (let attempt = 0; attempt < 8; attempt++) {
    const onBob = await instanceOf(cluster, bobId);
    if (onBob !== onAlice) {
      console.log(`sockets split over the two instances after ${attempt} reconnection(s) of Bob's`);
      return [onAlice, onBob];
    }
    await bob.context.setOffline(true);
    await expect.poll(() => instancesOf(cluster, bobId)).toEqual([]);
    if (attempt % 2 === 0) expect((await bob.page.request.get(routes.healthGet.path)).status()).toBe(200);
    await bob.context.setOffline(false);
    await expect(connection(bob)).toHaveAttribute('data-connection-state', 'authenticated');
  }
  throw new Error('Bob’s socket never landed on the other instance than Alice’s');
}

/** How many requests to `path` each instance answered with `status`, from its own log. */
function answered(cluster: TwoInstances, path: string, status: number): [number, number] {
  return cluster.requests().map((logged) => logged.filter((r) => r.url === path && r.status === status).length) as [number, number];
}

test('two instances behind nginx: chat, presence, a blocked address, a ban and emergency mode reach members on both', async ({
  network,
  cluster,
}) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  await alice.page.setViewportSize({ width: 1366, height: 800 });
  await bob.page.setViewportSize({ width: 390, height: 844 });

  await test.step('their sockets are on different instances', async () => {
    const [onAlice, onBob] = await splitAcrossInstances(cluster, alice, bob);
    expect(onAlice).not.toBe(onBob);
    // Each instance's own log has taken upgrades: two processes, not one seen twice.
    const [a, b] = cluster.requests().map((logged) => logged.filter((r) => r.url === '/ws').length);
    console.log(`socket upgrades taken: ${a} by the first instance, ${b} by the second`);
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
  });

  await test.step('chat crosses instances both ways, live', async () => {
    await send(alice.page, 'Hello Bob, from the other instance');
    await expect(log(bob.page).getByText('Hello Bob, from the other instance', { exact: true })).toBeVisible();
    await send(bob.page, 'Heard you through Redis, Alice');
    await expect(log(alice.page).getByText('Heard you through Redis, Alice', { exact: true })).toBeVisible();
    await shot(alice.page, '01-alice-1366');
    await shot(bob.page, '02-bob-390');
  });

  await test.step('presence crosses instances: Bob offline and back, as Alice sees it', async () => {
    const bobInAlicesList = members(alice.page).getByRole('button', { name: /bob/ });
    await expect(bobInAlicesList).toContainText('Online');
    await bob.context.setOffline(true);
    await expect(bobInAlicesList).toContainText('Offline');
    await bob.context.setOffline(false);
    await expect(connection(bob)).toHaveAttribute('data-connection-state', 'authenticated');
    await expect(bobInAlicesList).toContainText('Online');
    await splitAcrossInstances(cluster, alice, bob);
  });

  await test.step('a blocked address is refused by both instances, and their sockets closed', async () => {
    const before = answered(cluster, routes.me.path, 403);
    // Both members' browsers come through nginx as MEMBERS_ADDRESS.
    const res = await network.creatorApi.post(routes.blockIp.path, { data: { ip: MEMBERS_ADDRESS, reason: 'two-instance test' } });
    expect(res.status()).toBe(200);
    // The instance that took the block closed its member's socket; the other learnt it on the bus.
    for (const m of [alice, bob]) await expect(connection(m)).not.toHaveAttribute('data-connection-state', 'authenticated');
    // nginx takes turns: four requests, two for each instance, all refused.
    for (let i = 0; i < 4; i++) {
      const refused = await alice.page.request.get(routes.me.path);
      expect(refused.status()).toBe(403);
      expect(await refused.json()).toMatchObject({ error: errorTexts.ipBlocked });
    }
    const after = answered(cluster, routes.me.path, 403);
    expect(after[0] - before[0], 'refusals by the first instance').toBeGreaterThan(0);
    expect(after[1] - before[1], 'refusals by the second instance').toBeGreaterThan(0);
    // An address the client writes itself is not believed: nginx appends the one it saw.
    const spoofed = await alice.page.request.get(routes.me.path, { headers: { 'X-Forwarded-For': '198.51.100.7' } });
    expect(spoofed.status()).toBe(403);
    await shot(alice.page, '03-alice-blocked');

    expect((await network.creatorApi.post(routes.unblockIp.path, { data: { ip: MEMBERS_ADDRESS } })).status()).toBe(200);
    for (const m of [alice, bob])
      await expect(connection(m)).toHaveAttribute('data-connection-state', 'authenticated', { timeout: 40_000 });
    expect((await alice.page.request.get(routes.healthGet.path)).status()).toBe(200);
    await splitAcrossInstances(cluster, alice, bob);
  });

  await test.step('a ban on one instance ends Bob’s chat, and Alice on the other sees him banned', async () => {
    const page = await network.newCreatorPage();
    await page.goto('/super-admin');
    await openConsole(page);
    // Presence rows of both instances, counted together.
    await expect(stat(page, 'Online Now')).toHaveText('2');
    await page.getByRole('button', { name: 'Ban bob', exact: true }).click();
    await expectToast(page, 'User Banned', 'bob has been banned from the network.');
    await memberIsGone(bob);
    await expect(members(alice.page).getByRole('button', { name: /bob/ })).toContainText('Banned');
    await shot(alice.page, '04-alice-sees-bob-banned');
    await page.getByRole('button', { name: 'Unban bob' }).click();
    await expectToast(page, 'User Unbanned', 'bob can sign in again.');
    await network.signIn(bob.page, bob.token);
    await expect(connection(bob)).toHaveAttribute('data-connection-state', 'authenticated');
    await splitAcrossInstances(cluster, alice, bob);

    await test.step('emergency mode sends both away, whichever instance holds them, and closes registration on both', async () => {
      await page.getByRole('button', { name: 'Emergency Shutdown', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Shut the network down?' });
      await expect(dialog).toContainText('2 members');
      await dialog.getByRole('button', { name: 'Shut down now' }).click();
      await Promise.all([memberIsGone(alice), memberIsGone(bob)]);
      await expectToast(page, 'Emergency Shutdown Activated', '2 members banned');
      await shot(page, '05-creator-emergency');

      // Requests through nginx until each instance has answered one: both refuse registration.
      const [key] = await network.mintKeys(1);
      const before = answered(cluster, routes.validateKey.path, 200);
      const byBoth = () => answered(cluster, routes.validateKey.path, 200).every((n, i) => n > before[i]!);
      for (let i = 0; i < 8 && !byBoth(); i++) {
        const res = await network.creatorApi.post(routes.validateKey.path, { data: { inviteKey: key } });
        expect(await res.json()).toMatchObject({ valid: false, registrationClosed: true, reason: errorTexts.registrationClosed });
      }
      expect(byBoth(), 'both instances answered').toBe(true);

      await page.getByRole('button', { name: 'Lift emergency mode' }).click();
      await expectToast(page, 'Emergency Mode Lifted');
      await expect(page.getByRole('region', { name: 'Emergency mode active' })).toHaveCount(0);
      await page.getByRole('button', { name: 'Unban all banned (2)' }).click();
      await expectToast(page, 'Users Unbanned', '2 members');
      for (const m of [alice, bob]) {
        await network.signIn(m.page, m.token);
        await expect(connection(m)).toHaveAttribute('data-connection-state', 'authenticated');
      }
    });
  });

  expect(cluster.nginx.errorLog()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
});
