/**
 * Issue 3, moderation: an admin bans a member from the chat; the ban ends the member's open chat at
 * once and keeps them out; an unban lets them back in.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { joinThroughUi, signIn } from './support/members';
import { E2E_MASTER_KEY, EnclaveServer } from './support/server';

const server = new EnclaveServer();
/** Set ENCLAVE_SHOTS_DIR to keep screenshots of the screens for a look by eye. */
const shotsDir = process.env.ENCLAVE_SHOTS_DIR;

async function shot(page: Page, name: string): Promise<void> {
  if (!shotsDir) return;
  fs.mkdirSync(shotsDir, { recursive: true });
  await page.screenshot({ path: path.join(shotsDir, `${name}.png`) });
}

test.beforeAll(async () => {
  await server.start();
});

test.afterAll(async () => {
  await server.dispose();
});

/** A toast with this title says this (Radix also mirrors it into a live region, hence the filter). */
const toast = (page: Page, title: string, description: string | RegExp) =>
  expect(page.getByRole('status').filter({ hasText: title })).toContainText(description);

async function promoteToAdmin(request: APIRequestContext, userId: string): Promise<void> {
  const res = await request.post(`${server.url}/api/super-admin/set-role`, {
    headers: { Authorization: `SuperAdmin ${E2E_MASTER_KEY}` },
    data: { userId, role: 'admin' },
  });
  expect(res.status()).toBe(200);
}

test('an admin bans a member, who is sent away at once, then unbans them', async ({ browser, request }) => {
  const [adminKey, memberKey] = server.generateKeys(2);
  const admin = await joinThroughUi(await browser.newContext({ baseURL: server.url }), adminKey!, 'warden');
  const member = await joinThroughUi(await browser.newContext({ baseURL: server.url }), memberKey!, 'rowdy');
  const me = await admin.page.request.get('/api/auth/me');
  await promoteToAdmin(request, ((await me.json()) as { user: { id: string } }).user.id);

  // Members do not see moderation; the promoted admin does, as soon as the server says so.
  await expect(member.page.getByText('Admin View')).toHaveCount(0);
  await expect(member.page.getByRole('button', { name: 'Ban warden', exact: true })).toHaveCount(0);
  const members = admin.page.getByRole('complementary', { name: 'Members' });
  await expect(admin.page.getByText('Admin View')).toBeVisible();
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toBeVisible();
  await expect(members.getByRole('button', { name: 'Ban warden', exact: true })).toHaveCount(0);
  await shot(admin.page, 'chat-admin-view');

  // The ban asks first, then ends the member's open chat within a second.
  await members.getByRole('button', { name: 'Ban rowdy', exact: true }).click();
  const dialog = admin.page.getByRole('dialog', { name: 'Ban rowdy?' });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel('Reason (optional)').fill('Spamming the channel');
  await shot(admin.page, 'chat-ban-dialog');
  await dialog.getByRole('button', { name: 'Ban member' }).click();
  await expect(member.page).toHaveURL(`${server.url}/`, { timeout: 1000 });
  await toast(member.page, 'Session Ended', 'You have been banned from the network: Spamming the channel');

  await toast(admin.page, 'User Banned', 'User has been banned from the network');
  await expect(dialog).toHaveCount(0);
  await expect(members.getByRole('listitem').filter({ hasText: 'rowdy' })).toContainText('Banned');
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toHaveCount(0);
  await shot(admin.page, 'chat-admin-view-banned');

  // The token no longer opens the network.
  await signIn(member.page, member.token);
  await toast(member.page, 'Account Banned', 'This account has been banned from the network.');
  await expect(member.page).toHaveURL(`${server.url}/`);

  // Unbanned, the member comes back with the same token.
  await members.getByRole('button', { name: 'Unban rowdy' }).click();
  await toast(admin.page, 'User Unbanned', 'User can access the network again');
  await expect(members.getByRole('button', { name: 'Ban rowdy', exact: true })).toBeVisible();
  await signIn(member.page, member.token);
  await expect(member.page).toHaveURL(/\/chat$/);
  await expect(member.page.locator('[data-connection-state="authenticated"]')).toBeVisible();

  await Promise.all([admin.context.close(), member.context.close()]);
});
