/**
 * The creator bans one member from the console's member list: the member's open chat ends at once
 * and the list gives the reason; an unban from the same list lets them sign in again.
 */
import { memberIsGone, openConsole } from './support/creator-console';
import { expect, test } from './support/network';
import { expectToast } from './support/toasts';

test('the creator bans and unbans one member from the list', async ({ network }) => {
  const bob = await network.join('bob');
  const page = await network.newCreatorPage();
  await page.goto('/super-admin');
  await openConsole(page);

  await page.getByRole('button', { name: 'Ban bob', exact: true }).click();
  await expectToast(page, 'User Banned', 'bob has been banned from the network.');
  await memberIsGone(bob);
  await expect(page.locator('[data-member="bob"] [data-col="ban-reason"]')).toHaveText('Banned by network creator');
  await page.getByRole('button', { name: 'Unban bob' }).click();
  await expectToast(page, 'User Unbanned', 'bob can sign in again.');
  await expect(page.locator('[data-member="bob"] [data-member-state="offline"]')).toBeVisible();

  await network.signIn(bob.page, bob.token);
  await expect(bob.page).toHaveURL(/\/chat$/);
  await expect(bob.page.locator('[data-connection-state="authenticated"]')).toBeVisible();
});
