/**
 * A private group of three, each member in a browser of their own: Alice creates "Project Falcon"
 * with Bob and Carol, who find it in their sidebars by name; all three read Alice's message, Bob
 * replies, and a timer, a mention, a file, a reaction and read receipts work as in any conversation. Alice
 * removes Carol: the group leaves Carol's screen at once (she is told, she had it open), and what
 * Alice writes next reaches Bob but never Carol, not even after a reload, nor once Alice adds her
 * back. Then Carol leaves on her own. Neither the name nor any text crosses the wire or reaches
 * the database.
 */
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { rowAction, rowOf, sendFromComposer } from './support/annotations';
import { conversationLog } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { dumpDatabase } from './support/p2p';
import { expectToast } from './support/toasts';
import { WireTap } from './support/wire';

const shot = storyShots('group-of-three');
const GROUP = 'Project Falcon';
const LAPTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

const groupsOf = (page: Page) => page.getByRole('region', { name: 'Groups' });
const groupEntry = (page: Page) => groupsOf(page).getByRole('button', { name: new RegExp(`^${GROUP}`) });
const heading = (page: Page) => page.getByRole('heading', { level: 2, name: GROUP });

test('a group of three: created, read, replied to, and closed to the member removed', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const carol = await network.join('carol');
  // Everything the three browsers send and receive from here on, to look for the name and the texts.
  const tap = new WireTap();
  for (const member of [alice, bob, carol]) {
    tap.attach(member.context);
    await member.page.setViewportSize(LAPTOP);
  }

  // Alice creates the group from the sidebar, with Bob and Carol chosen in the picker.
  await groupsOf(alice.page).getByRole('button', { name: 'New group' }).click();
  const dialog = alice.page.getByRole('dialog', { name: 'New group' });
  await dialog.getByLabel('Group name').fill(GROUP);
  await dialog.getByRole('searchbox', { name: 'Search members' }).fill('o');
  await expect(dialog.getByRole('checkbox')).toHaveCount(2);
  await dialog.getByRole('checkbox', { name: 'bob' }).check();
  await dialog.getByRole('searchbox', { name: 'Search members' }).fill('car');
  await expect(dialog.getByRole('checkbox')).toHaveCount(1);
  await dialog.getByRole('checkbox', { name: 'carol' }).check();
  await expect(dialog.getByText('(2 chosen)')).toBeVisible();
  await expectAccessible(alice.page);
  await shot(alice.page, 'alice-new-group-1280');
  await dialog.getByRole('button', { name: 'Create group' }).click();
  await expect(dialog).toBeHidden();
  await expect(heading(alice.page)).toBeVisible();
  await expect(alice.page.getByText('3 members', { exact: true })).toBeVisible();

  // Bob and Carol find it in their sidebars by name, without reloading.
  await expect(groupEntry(bob.page)).toBeVisible();
  await expect(groupEntry(carol.page)).toBeVisible();

  // Alice writes; Bob's entry counts it unread until he opens the group; both read it, signed by Alice.
  await sendFromComposer(alice.page, 'Falcon lands at noon');
  await expect(groupEntry(bob.page).getByTestId('unread-count')).toHaveText('1 unread');
  for (const member of [bob, carol]) {
    await groupEntry(member.page).click();
    await expect(heading(member.page)).toBeVisible();
    await expect(rowOf(member.page, 'Falcon lands at noon')).toContainText('alice');
  }
  await expect(groupEntry(bob.page).getByTestId('unread-count')).toHaveCount(0);
  // No DM controls in a group.
  await expect(bob.page.getByRole('main').locator('header').getByRole('button', { name: 'Safety number' })).toHaveCount(0);

  // Bob replies; Alice and Carol see the quote.
  await rowAction(bob.page, 'Falcon lands at noon', 'Reply');
  await sendFromComposer(bob.page, 'Copy that');
  for (const member of [alice, carol]) {
    await expect(rowOf(member.page, 'Copy that').getByRole('button', { name: /^Replying to alice: Falcon lands at noon/ })).toBeVisible();
  }

  // Any member sets the group's timer (Bob is not its admin); @ completes to the group's members.
  await bob.page.getByLabel('Disappearing messages').selectOption({ label: '1 week' });
  await expect(conversationLog(alice.page).getByText('bob set disappearing messages to 1 week')).toBeVisible();
  await carol.page.getByRole('textbox', { name: 'Message' }).fill('@al');
  await expect(carol.page.getByRole('option', { name: 'alice' })).toBeVisible();
  await carol.page.getByRole('textbox', { name: 'Message' }).fill('');

  // A file and a reaction travel in the group like in any conversation.
  const plan = { name: 'falcon-plan.txt', mimeType: 'text/plain', buffer: Buffer.from('Noon, north field.') };
  const chooser = carol.page.waitForEvent('filechooser');
  await carol.page.getByRole('button', { name: /Attach a file/ }).click();
  await (await chooser).setFiles(plan);
  await carol.page.getByRole('textbox', { name: 'Caption' }).fill('The plan');
  await carol.page.getByRole('button', { name: 'Send', exact: true }).click();
  const download = alice.page.waitForEvent('download');
  await rowOf(alice.page, 'The plan')
    .getByRole('button', { name: /^Download falcon-plan\.txt/ })
    .click();
  const saved = await (await download).path();
  expect(fs.readFileSync(saved, 'utf8')).toBe('Noon, north field.');
  await rowAction(alice.page, 'Copy that', 'React');
  await alice.page.getByRole('group', { name: 'Choose a reaction' }).getByRole('button', { name: 'React with 👍' }).click();
  await expect(rowOf(bob.page, 'Copy that').getByRole('button', { name: '👍 1', exact: true })).toBeVisible();

  // Read receipts in a group this small: Alice and Bob send them, Carol does not; Alice sees who read.
  for (const member of [alice, bob]) {
    const saved = member.page.waitForResponse((r) => r.url().endsWith('/api/users/me/read-receipts') && r.ok());
    await member.page.getByRole('switch', { name: 'Send read receipts' }).setChecked(true);
    await saved;
  }
  await sendFromComposer(alice.page, 'Who has read this?');
  await expect(conversationLog(alice.page).getByTestId('read-receipt')).toHaveText('Read by bob');

  // Alice, the group's admin, removes Carol after confirming.
  await alice.page.getByRole('button', { name: 'Group members' }).click();
  const members = alice.page.getByRole('dialog', { name: GROUP });
  await expect(members.getByRole('listitem').filter({ hasText: 'alice' })).toContainText('admin');
  await expectAccessible(alice.page);
  await shot(alice.page, 'alice-group-members-1280');
  await members.getByRole('button', { name: 'Remove carol' }).click();
  await members.getByRole('button', { name: 'Remove member' }).click();
  await expect(members.getByRole('listitem')).toHaveCount(2);
  await alice.page.keyboard.press('Escape');
  await expect(alice.page.getByText('2 members', { exact: true })).toBeVisible();

  // Carol had it open: she is told, and the channel takes its place.
  await expectToast(carol.page, 'You are no longer a member of this group');
  await expect(groupEntry(carol.page)).toHaveCount(0);
  await expect(carol.page.getByRole('heading', { level: 2, name: 'General Channel' })).toBeVisible();
  await shot(carol.page, 'carol-removed-1280', { toasts: true });

  // What Alice writes now reaches Bob, never Carol.
  await sendFromComposer(alice.page, 'after removal');
  await expect(rowOf(bob.page, 'after removal')).toContainText('alice');
  await carol.page.reload();
  await expect(carol.page.locator('[data-connection-state="authenticated"]')).toBeVisible();
  await expect(groupsOf(carol.page).getByText('No groups yet.')).toBeVisible();
  await expect(conversationLog(carol.page)).toBeVisible();
  await expect(carol.page.getByText('after removal')).toHaveCount(0);

  // Added again, Carol finds the group by its name (sealed anew for her), and still never reads
  // what was written while she was out.
  await alice.page.getByRole('button', { name: 'Group members' }).click();
  await members.getByRole('button', { name: 'Add members' }).click();
  await members.getByRole('checkbox', { name: 'carol' }).check();
  await members.getByRole('button', { name: 'Add to group' }).click();
  await expect(members.getByRole('listitem')).toHaveCount(3);
  await alice.page.keyboard.press('Escape');
  await groupEntry(carol.page).click();
  await expect(heading(carol.page)).toBeVisible();
  await expect(carol.page.getByText('3 members', { exact: true })).toBeVisible();
  await expect(carol.page.getByText('after removal')).toHaveCount(0);

  // On a phone the group is one tap away in the drawer, and its header fits.
  await bob.page.setViewportSize(PHONE);
  await expect(heading(bob.page)).toBeVisible();
  await expectNoOverflow(bob.page);
  await expectAccessible(bob.page);
  await shot(bob.page, 'bob-group-390');
  await bob.page.getByRole('button', { name: 'Members', exact: true }).click();
  const drawer = bob.page.getByRole('dialog', { name: 'Conversations' });
  await expect(groupEntry(bob.page)).toBeVisible();
  await shot(bob.page, 'bob-drawer-390');
  // "New group" in the drawer gives way to its dialog.
  await drawer.getByRole('button', { name: 'New group' }).click();
  await expect(drawer).toBeHidden();
  await expect(bob.page.getByRole('dialog', { name: 'New group' }).getByLabel('Group name')).toBeFocused();
  await bob.page.keyboard.press('Escape');
  await expect(bob.page.getByRole('dialog', { name: 'New group' })).toBeHidden();
  await bob.page.getByRole('button', { name: 'Group members' }).click();
  await expect(bob.page.getByRole('dialog', { name: GROUP }).getByRole('button', { name: /^Remove/ })).toHaveCount(0);
  await expectNoOverflow(bob.page);
  await shot(bob.page, 'bob-group-members-390');

  // Carol leaves on her own, after confirming; the others see the group shrink.
  await carol.page.getByRole('button', { name: 'Group members' }).click();
  const carolsMembers = carol.page.getByRole('dialog', { name: GROUP });
  await carolsMembers.getByRole('button', { name: 'Leave group' }).click();
  await carolsMembers.getByRole('button', { name: 'Leave group' }).click();
  await expect(carolsMembers).toBeHidden();
  await expect(carol.page.getByRole('heading', { level: 2, name: 'General Channel' })).toBeVisible();
  await expect(groupEntry(carol.page)).toHaveCount(0);
  await expect(alice.page.getByText('2 members', { exact: true })).toBeVisible();

  // The name and every text stayed in the browsers: none crossed the wire or reached the database.
  const secrets = [GROUP, 'Who has read this?', 'Falcon lands at noon', 'Copy that', 'after removal', 'Noon, north field.', 'The plan'];
  expect(tap.payloads.some((p) => p.startsWith('POST ') && p.includes('/api/groups '))).toBe(true);
  for (const secret of secrets)
    expect(
      tap.payloads.filter((p) => p.includes(secret)),
      `the wire carried ${secret}`,
    ).toEqual([]);
  await network.close();
  const database = await dumpDatabase(network.server);
  expect(database).toContain('group_members');
  for (const secret of secrets) expect(database.includes(secret), `the database holds ${secret}`).toBe(false);
});
