/**
 * An admin bans a member from the chat: the ban ends the member's open chat at once and keeps
 * them out; an unban lets them back in.
 */

import { joinThroughUi, promoteToAdmin, signIn } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';
import { expectToast } from './support/toasts';

const server = new EnclaveServer();
const shot = storyShots('moderation');

test.beforeAll(async () => {
  await server.start();
});

test.afterAll(async () => {
  await server.dispose();
});

test('an admin bans a member, who is sent away at once, then unbans them', async ({ browser, request }) => {
  const [adminKey, memberKey] = server.generateKeys(2);
  const admin = await joinThroughUi(await browser.newContext({ baseURL: server.url }), adminKey!, 'warden');
  const member = await joinThroughUi(await browser.newContext({ baseURL: server.url }), memberKey!, 'rowdy');
  await promoteToAdmin(request, server.url, admin);

  // Members do not see moderation; the promoted admin does, as soon as the server says so.
  await expect(member.page.getByText('Admin View')).toHaveCount(0);
  await expect(member.page.getByRole('button', { name: 'Ban warden', exact: true })).toHaveCount(0);
  const members = admin.page.getByRole('complementary', { name: 'Members' });
  await expect(admin.page.getByText('Admin View')).toBeVisible();
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toBeVisible();
  await expect(members.getByRole('button', { name: 'Ban warden', exact: true })).toHaveCount(0);
  await shot(admin.page, 'chat-admin-view');

  // The ban asks first, then ends the member's open chat at once (no reload, no polling).
  await members.getByRole('button', { name: 'Ban rowdy', exact: true }).click();
  const dialog = admin.page.getByRole('dialog', { name: 'Ban rowdy?' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Reason (optional)').fill('Spamming the channel');
  await shot(admin.page, 'chat-ban-dialog');
  await dialog.getByRole('button', { name: 'Ban member' }).click();
  await expect(member.page).toHaveURL(`${server.url}/`);
  await expectToast(member.page, 'Session Ended', 'You have been banned from the network: Spamming the channel');

  await expectToast(admin.page, 'User Banned', 'User has been banned from the network');
  await expect(dialog).toHaveCount(0);
  await expect(members.getByRole('listitem').filter({ hasText: 'rowdy' })).toContainText('Banned');
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toHaveCount(0);
  await shot(admin.page, 'chat-admin-view-banned');

  // The token no longer opens the network.
  await signIn(member.page, member.token);
  await expectToast(member.page, 'Account Banned', 'This account has been banned from the network.');
  await expect(member.page).toHaveURL(`${server.url}/`);

  // Unbanned, the member comes back with the same token.
  await members.getByRole('button', { name: 'Unban rowdy' }).click();
  await expectToast(admin.page, 'User Unbanned', 'User can access the network again');
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toBeVisible();
  await signIn(member.page, member.token);
  await expect(member.page).toHaveURL(/\/chat$/);
  await expect(member.page.locator('[data-connection-state="authenticated"]')).toBeVisible();

  await Promise.all([admin.context.close(), member.context.close()]);
});
