/**
 * Alice has a DM with Bob open when the creator bans him: the composer says "This member is
 * banned" (the server's own refusal) and is disabled at once, instead of ending in "Send Failed"
 * with a Retry that cannot succeed. It stays so after a reload, and comes back when the ban is
 * lifted.
 */
import { sessionResponseSchema } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { conversationLog } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('dm-with-banned-member');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });

test('a DM with a banned member says so and disables sending, live', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const me = await bob.page.request.get('/api/auth/me');
  const bobId = sessionResponseSchema.parse(await me.json()).user.id;

  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  const composer = alice.page.getByRole('textbox', { name: 'Message' });
  const sendButton = alice.page.getByRole('button', { name: 'Send', exact: true });
  await composer.fill('Hello Bob');
  await sendButton.click();
  await expect(conversationLog(alice.page).getByText('Hello Bob', { exact: true })).toBeVisible();
  await expect(alice.page.getByText('This member is banned')).toHaveCount(0);

  // Banned while the DM is open: the composer says so without a reload.
  await composer.fill('Are you there?');
  const ban = await network.creatorApi.post('/api/super-admin/ban-user', { data: { userId: bobId } });
  expect(ban.status()).toBe(200);
  await expect(alice.page.getByRole('status').filter({ hasText: 'This member is banned' })).toBeVisible();
  await expect(composer).toBeDisabled();
  await expect(sendButton).toBeDisabled();
  await expect(alice.page.getByRole('button', { name: /Attach a file/ })).toBeDisabled();
  await expect(composer).toHaveAccessibleDescription(/This member is banned/);
  await expect(alice.page.getByText('Send Failed')).toHaveCount(0);
  await expectAccessible(alice.page);
  await expectNoOverflow(alice.page);
  await shot(alice.page, 'dm-banned-1366');

  // A reload, or coming back to the DM from the channel, finds it the same.
  await alice.page.reload();
  await expect(alice.page.locator('[data-connection-state="authenticated"]')).toBeVisible();
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(alice.page.getByRole('status').filter({ hasText: 'This member is banned' })).toBeVisible();
  await expect(composer).toBeDisabled();
  await alice.page.setViewportSize({ width: 390, height: 844 });
  await expectNoOverflow(alice.page);
  await shot(alice.page, 'dm-banned-390');

  // The channel is not affected.
  await alice.page.setViewportSize({ width: 1366, height: 900 });
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(alice.page.getByText('This member is banned')).toHaveCount(0);
  await expect(composer).toBeEnabled();

  // Unbanned: the DM can be written to again.
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(composer).toBeDisabled();
  const unban = await network.creatorApi.post('/api/super-admin/unban-user', { data: { userId: bobId } });
  expect(unban.status()).toBe(200);
  await expect(alice.page.getByText('This member is banned')).toHaveCount(0);
  await expect(composer).toBeEnabled();
});
