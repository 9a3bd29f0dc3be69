/**
 * A new member looks after their own security at /security: real status checks and the score
 * made of them, their fingerprint as a contact sees it, counters from their own events, their
 * sessions (ending another browser's), and the emergency wipe, after which this browser holds
 * nothing and the access token still signs them in.
 */
import { mySecurityResponseSchema } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { browserData, isEmpty } from './support/browser-data';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('security-dashboard');

const check = (page: Page, id: string) => page.locator(`[data-check="${id}"]`);
const count = (page: Page, group: string, key: string) => page.getByRole('group', { name: group }).locator(`[data-count="${key}"]`);

test('a member checks their security, ends another session and wipes this browser', async ({ network }) => {
  const bob = await network.join('bob');
  const alice = await network.join('alice');
  const page = alice.page;

  // From the chat's top bar; the checks are real and all pass for an honest browser and server.
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page).toHaveURL(/\/security$/);
  await expect(page.getByRole('heading', { name: 'Security', level: 1 })).toBeVisible();
  for (const id of ['secure-context', 'webcrypto', 'keys', 'session', 'server-keys', 'contacts', 'tamper']) {
    await expect(check(page, id)).toHaveAttribute('data-check-state', 'pass');
  }
  await expect(page.locator('[data-score]')).toHaveAttribute('data-score', '100');
  await expect(page.getByText('7 of 7 checks passed')).toBeVisible();
  await expect(page.getByText(/share of the 7 checks below that pass, each counting equally/)).toBeVisible();
  // Alice's browser pinned bob when the chat listed him.
  await expect(page.getByRole('list', { name: 'Pinned contacts' }).getByText('bob')).toBeVisible();
  await expect(check(page, 'contacts')).toContainText('1 contact pinned; every key matches its pin.');

  // Her fingerprint is the one bob's browser shows for her beside their safety number.
  const aliceEntry = bob.page.getByRole('complementary', { name: 'Members' }).getByRole('listitem').filter({ hasText: 'alice' });
  await aliceEntry.getByRole('button', { name: 'Safety number' }).click();
  const seenByBob = bob.page.getByRole('dialog', { name: 'Safety number with alice' }).locator('[data-fingerprint="contact"]');
  await expect(seenByBob).toHaveText(/^(\d{5} ){11}\d{5}$/);
  await expect(page.getByLabel('Your fingerprint')).toHaveText((await seenByBob.textContent())!);

  // Counters: her own events as the server counts them, and nothing detected in this browser.
  const mine = mySecurityResponseSchema.parse(await (await page.request.get('/api/security/me')).json());
  for (const key of ['total', 'critical', 'high', 'medium', 'low'] as const) {
    await expect(count(page, 'Your account, last 30 days', key)).toHaveText(String(mine.counts[key]));
    await expect(count(page, 'This browser, since the page loaded', key)).toHaveText('0');
  }
  await expect(page.getByLabel('Breach policy')).toContainText('which records the report. Your account stays open');
  await expect(page.getByText('Nothing detected in this browser since this page loaded.')).toBeVisible();

  // A second browser signed in as alice: listed, then signed out from here.
  const otherPage = await (await network.newContext()).newPage();
  await network.signIn(otherPage, alice.token);
  await expect(otherPage.locator('[data-connection-state="authenticated"]')).toBeVisible();
  await page.reload();
  const sessions = page.getByRole('list', { name: 'Signed-in devices' }).getByRole('listitem');
  await expect(sessions).toHaveCount(2);
  await expect(sessions.filter({ hasText: 'This device' })).toHaveCount(1);
  await expect(page.locator('[data-score]')).toHaveAttribute('data-score', '100');
  await shot(page, '01-security-dashboard');

  await page.getByRole('button', { name: 'Sign out all other devices' }).click();
  await expectToast(page, 'Other Devices Signed Out', '1 device signed out.');
  await expect(sessions).toHaveCount(1);
  await expect(otherPage).toHaveURL(new URL('/', network.server.url).toString());
  await expect(otherPage.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
  expect((await otherPage.request.get('/api/auth/me')).status()).toBe(401);
  await expect(page.getByRole('button', { name: 'Sign out all other devices' })).toBeDisabled();

  // The emergency wipe asks first, then ends every session and empties this browser.
  await page.getByRole('button', { name: 'Emergency Wipe' }).click();
  const dialog = page.getByRole('dialog', { name: 'Wipe this browser and end every session?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('sign in again with your access token');
  await shot(page, '02-emergency-wipe-confirmation');
  await dialog.getByRole('button', { name: 'Wipe Now' }).click();
  await expect(page).toHaveURL(new URL('/', network.server.url).toString());
  await expectToast(page, 'Emergency Wipe Complete', 'This browser holds no Enclave data.');
  await shot(page, '03-after-emergency-wipe', { toasts: true });
  const left = await browserData(page);
  expect(isEmpty(left), JSON.stringify(left)).toBe(true);
  expect((await page.request.get('/api/auth/me')).status()).toBe(401);

  // Only the browser was wiped: the token still opens the account.
  await network.signIn(page, alice.token);
  await expect(page).toHaveURL(/\/chat$/);
  await expect(page.locator('[data-connection-state="authenticated"]')).toBeVisible();
});
