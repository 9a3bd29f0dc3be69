/** The login screen's refusals and the 404 page, as a visitor meets them. */
import { EnclaveServer } from './support/server';
import { expect, test } from './support/test';
import { expectToast } from './support/toasts';

// A malformed token is also a tamper detection: the login screen calls the decoys 2 s later
// (escalation: tamper-detection.spec.ts).
test.use({ tamperCountermeasures: 'expected' });

const server = new EnclaveServer();
test.beforeAll(async () => server.start());
test.afterAll(async () => server.dispose());

test('refuses short, malformed and unknown tokens with the specification texts', async ({ page }) => {
  await page.goto(server.url + '/');
  const token = page.getByLabel('Access Token', { exact: true });
  const go = page.getByRole('button', { name: 'Decrypt & Access' });

  await token.fill('abc');
  await go.click();
  await expectToast(page, 'Invalid Access Token', 'Access token must be at least 64 characters long');

  await token.fill('0'.repeat(64));
  await go.click();
  await expectToast(page, 'Security Alert', 'Token format validation failed. Suspicious activity detected.');

  await token.fill('0123456789abcdef'.repeat(4));
  await go.click();
  await expectToast(page, 'Authentication Failed', 'Invalid access token. Multiple failed attempts trigger automatic data wipe.');
  await expect(page).toHaveURL(server.url + '/');
});

test('create vault refuses a short or unknown key', async ({ page }) => {
  await page.goto(server.url + '/login');
  await page.getByRole('tab', { name: 'Create Vault' }).click();
  const key = page.getByLabel('Access Key', { exact: true });
  await key.fill('f'.repeat(63));
  await expect(page.getByRole('button', { name: 'Validate Access Key' })).toBeDisabled();
  await key.fill('f'.repeat(64));
  await page.getByRole('button', { name: 'Validate Access Key' }).click();
  await expectToast(page, 'Invalid Access Key', 'This access key is not valid');
});

test("the arrow keys move between the login card's tabs", async ({ page }) => {
  await page.goto(server.url + '/');
  const signIn = page.getByRole('tab', { name: 'Access Network' });
  const create = page.getByRole('tab', { name: 'Create Vault' });
  await expect(signIn).toHaveAttribute('aria-selected', 'true');
  // Only the selected tab is in the Tab order.
  await expect(signIn).toHaveAttribute('tabindex', '0');
  await expect(create).toHaveAttribute('tabindex', '-1');
  await signIn.focus();
  await page.keyboard.press('ArrowRight');
  await expect(create).toBeFocused();
  await expect(create).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('button', { name: 'Validate Access Key' })).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(signIn).toBeFocused();
  await page.keyboard.press('End');
  await expect(create).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(signIn).toBeFocused();
  await expect(signIn).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByRole('tabpanel')).toContainText('Decrypt & Access');
});

test('a signed-out visit to / and /validate logs no console error (no 401 for the session check)', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  const answered: number[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) answered.push(r.status());
  });
  for (const path of ['/', '/validate']) {
    await page.goto(server.url + path);
    await page.waitForLoadState('networkidle');
  }
  await expect(page.getByRole('button', { name: /validate/i }).first()).toBeVisible();
  expect(errors).toEqual([]);
  expect(answered).toEqual([]);
});

test('an unknown path shows the 404 page', async ({ page }) => {
  await page.goto(server.url + '/no/such/page');
  await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
  await expect(page.getByText('Did you forget to add the page to the router?')).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to Enclave' })).toHaveAttribute('href', '/');
});
