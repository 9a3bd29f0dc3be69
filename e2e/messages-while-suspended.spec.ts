/**
 * A member is banned by the creator; meanwhile another member writes three messages, which are
 * encrypted for the members present only. The ban is lifted and the member signs in again: the
 * three show as one explained gap, "3 messages sent while your account was suspended", not as
 * three broken "🔒 [Encrypted Message]" rows, between the messages they can read.
 */
import { sessionResponseSchema } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { conversationLog } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('messages-while-suspended');

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(conversationLog(page).getByText(text, { exact: true })).toBeVisible();
  await expect(page.getByText('Sending…')).toHaveCount(0);
}

async function userId(page: Page): Promise<string> {
  const res = await page.request.get('/api/auth/me');
  return sessionResponseSchema.parse(await res.json()).user.id;
}

test('messages sent while a member was banned show as one explained gap after the unban', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const bobId = await userId(bob.page);
  await send(alice.page, 'Before the ban');
  await expect(conversationLog(bob.page).getByText('Before the ban', { exact: true })).toBeVisible();

  const ban = await network.creatorApi.post('/api/super-admin/ban-user', { data: { userId: bobId, reason: 'Cooling off' } });
  expect(ban.status()).toBe(200);
  await expect(bob.page).toHaveURL(`${network.url}/`);
  // Alice's member list shows the ban: her next messages are encrypted without Bob.
  const aliceMembers = alice.page.getByRole('complementary', { name: 'Members' });
  await expect(aliceMembers.getByRole('listitem').filter({ hasText: 'bob' })).toContainText('Banned');
  for (const text of ['While away 1', 'While away 2', 'While away 3']) await send(alice.page, text);

  const unban = await network.creatorApi.post('/api/super-admin/unban-user', { data: { userId: bobId } });
  expect(unban.status()).toBe(200);
  await expect(aliceMembers.getByRole('listitem').filter({ hasText: 'bob' })).not.toContainText('Banned');
  await send(alice.page, 'Welcome back');

  await network.signIn(bob.page, bob.token);
  await expect(bob.page).toHaveURL(/\/chat$/);
  const log = conversationLog(bob.page);
  await expect(log.getByText('Welcome back', { exact: true })).toBeVisible();
  await expect(log.getByText('Before the ban', { exact: true })).toBeVisible();
  await expect(log.getByText('3 messages sent while your account was suspended', { exact: true })).toBeVisible();
  await expect(log.getByText('🔒 [Encrypted Message]')).toHaveCount(0);
  await expect(log.getByText(/While away/)).toHaveCount(0);
  // The gap sits where the messages were: after what Bob read before, before the welcome.
  await expect(log.locator('li')).toHaveText([/Before the ban/, '3 messages sent while your account was suspended', /Welcome back/]);

  await expectAccessible(bob.page);
  await expectNoOverflow(bob.page);
  await shot(bob.page, 'gap-1366');
  await bob.page.setViewportSize({ width: 390, height: 844 });
  await expectNoOverflow(bob.page);
  await shot(bob.page, 'gap-390');
});
