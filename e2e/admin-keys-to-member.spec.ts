/**
 * An admin makes a sale batch of keys and exports it, a buyer checks one on /validate and joins
 * with it, and the admin's figures follow; /admin shows nothing to anyone else.
 */
import fs from 'node:fs';
import { keyStatsSchema, type KeyStats } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { expect, test } from './support/test';
import { joinThroughUi, promoteToAdmin } from './support/members';
import { E2E_MASTER_KEY, EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const server = new EnclaveServer();
const shot = storyShots('admin-keys-to-member');

test.beforeAll(async () => {
  await server.start();
});

test.afterAll(async () => {
  await server.dispose();
});

/** What the server says, through the admin's own session. */
async function statsOf(page: Page): Promise<KeyStats> {
  const res = await page.request.get('/api/admin/key-stats');
  expect(res.status()).toBe(200);
  return keyStatsSchema.parse(await res.json());
}

const usd = (amount: number) => `$${amount.toLocaleString('en-US')}`;

/** The four cards show exactly these figures. */
async function expectCards(page: Page, stats: KeyStats): Promise<void> {
  await expect(page.locator('[data-stat="Total Keys"]')).toHaveText(String(stats.total));
  await expect(page.locator('[data-stat="Revenue"]')).toHaveText(usd(stats.revenue));
  await expect(page.locator('[data-stat="Available Keys"]')).toHaveText(String(stats.available));
  await expect(page.locator('[data-stat="Conversion Rate"]')).toHaveText(`${stats.conversionRate}%`);
}

test('an admin sells a batch of keys and a buyer joins with one', async ({ browser, request }) => {
  // The admin starts as anyone does: a member with a key minted by staff, then promoted.
  const [adminKey] = server.generateKeys(1);
  const adminContext = await browser.newContext({ baseURL: server.url });
  await adminContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
  const admin = await joinThroughUi(adminContext, adminKey!, 'keymaster');
  await promoteToAdmin(request, server.url, admin);

  const page = admin.page;
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Admin Panel · Key Management' })).toBeVisible();
  const before = await statsOf(page);
  await expectCards(page, before);

  // A sale batch: 25 keys at $30, purchase ID batch-42.
  await page.getByLabel('Quantity').fill('25');
  await expect(page.getByLabel('Expiration (days)')).toHaveValue('365');
  await page.getByLabel('Purchase ID (optional)').fill('batch-42');
  await page.getByLabel('Sale price in USD (optional)').fill('30');
  await page.getByRole('button', { name: 'Generate Keys' }).click();
  await expectToast(page, 'Keys Generated Successfully', '25 keys generated');

  const afterGenerate: KeyStats = {
    ...before,
    total: before.total + 25,
    unused: before.unused + 25,
    available: before.available + 25,
    conversionRate: Math.round((before.used / (before.total + 25)) * 100),
  };
  expect(await statsOf(page)).toEqual(afterGenerate);
  await expectCards(page, afterGenerate);

  // The list shows the first 20 of them, each with its batch and price.
  const listed = page.getByRole('list', { name: 'Available keys' }).getByRole('listitem');
  await expect(listed).toHaveCount(20);
  await expect(listed.filter({ hasText: 'batch-42' })).toHaveCount(20);
  await expect(listed.first()).toContainText('$30');
  await shot(page, 'admin-signed-in');

  // The batch as CSV for the distributor.
  await page.getByLabel('Batch purchase ID').fill('batch-42');
  const downloading = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe('enclave-keys-batch-42.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8');
  const [header, ...rows] = csv.trim().split(/\r?\n/);
  expect(header).toBe('key,status,purchase_id,sale_price,generated_at,expires_at');
  expect(rows).toHaveLength(25);
  for (const row of rows) expect(row).toMatch(/^"[0-9a-f]{64}","active","batch-42","30",/);
  const csvKeys = rows.map((row) => row.slice(1, 65));
  const soldKey = (await listed.first().locator('code').textContent())!.trim();
  expect(csvKeys).toContain(soldKey);

  // Staff copy a key for the buyer.
  await listed
    .first()
    .getByRole('button', { name: /^Copy key / })
    .click();
  await expectToast(page, 'Copied to clipboard', 'The access key is on the clipboard.');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(soldKey);

  // A buyer, in their own browser, checks the key before registering.
  const buyerContext = await browser.newContext({ baseURL: server.url });
  const buyer = await buyerContext.newPage();
  await buyer.goto('/validate');
  await buyer.getByLabel('Access Key').fill(soldKey);
  await buyer.getByRole('button', { name: 'Validate', exact: true }).click();
  const result = buyer.getByRole('region', { name: 'Validation result' });
  await expect(result).toContainText('Valid Access Key');
  await expect(result).toContainText('This key is valid and unused. You can proceed with registration.');
  await expect(result).toContainText('$30');
  await expectToast(buyer, 'Valid Access Key', 'This key is valid and unused. You can proceed with registration.');
  await shot(buyer, 'validate-valid');
  await result.getByRole('button', { name: 'Proceed to Registration' }).click();

  // Create-vault mode with the key filled in; then the usual join.
  // The key is read, then taken out of the address bar so a reload does not send it to the server.
  await expect(buyer).toHaveURL(/\/login\?mode=register$/);
  await expect(buyer.getByRole('tab', { name: 'Create Vault' })).toHaveAttribute('aria-selected', 'true');
  await expect(buyer.getByLabel('Access Key', { exact: true })).toHaveValue(soldKey);
  await buyer.getByRole('button', { name: 'Validate Access Key' }).click();
  await buyer.getByLabel('Username', { exact: true }).fill('buyer42');
  await buyer.getByRole('button', { name: 'Generate Secure Keys' }).click();
  const tokenField = buyer.getByLabel('Your Access Token', { exact: true });
  await expect(tokenField).toHaveValue(/^[0-9a-f]{64}$/);
  await buyer.getByLabel('I have saved my access token').check();
  await buyer.getByRole('button', { name: 'Continue to Login' }).click();
  await buyer.getByRole('button', { name: 'Decrypt & Access' }).click();
  await expect(buyer).toHaveURL(/\/chat$/);
  await expect(buyer.locator('[data-connection-state="authenticated"]')).toBeVisible();

  // Back on the admin page: one more used key, $30 more, and the rate follows.
  await page.reload();
  const afterSale: KeyStats = {
    ...afterGenerate,
    used: afterGenerate.used + 1,
    unused: afterGenerate.unused - 1,
    available: afterGenerate.available - 1,
    revenue: afterGenerate.revenue + 30,
    conversionRate: Math.round(((afterGenerate.used + 1) / afterGenerate.total) * 100),
  };
  expect(await statsOf(page)).toEqual(afterSale);
  await expectCards(page, afterSale);
  await expect(page.locator('code', { hasText: soldKey })).toHaveCount(0);

  // The same key once more, by someone else: refused as used.
  const secondContext = await browser.newContext({ baseURL: server.url });
  const second = await secondContext.newPage();
  await second.goto('/validate');
  await second.getByLabel('Access Key').fill(soldKey);
  await second.getByRole('button', { name: 'Validate', exact: true }).click();
  const refused = second.getByRole('region', { name: 'Validation result' });
  await expect(refused).toContainText('Invalid Access Key');
  await expect(refused).toContainText('This access key has already been used');
  await expect(refused.getByRole('button', { name: 'Proceed to Registration' })).toHaveCount(0);
  await shot(second, 'validate-invalid');

  // A key that leaked is revoked after a confirmation, and the figures follow.
  const leaked = (await listed.first().locator('code').textContent())!.trim();
  await listed
    .first()
    .getByRole('button', { name: /^Revoke key / })
    .click();
  const confirm = page.getByRole('dialog', { name: 'Revoke this key?' });
  await expect(confirm).toContainText(leaked);
  await confirm.getByRole('button', { name: 'Revoke key' }).click();
  await expectToast(page, 'Key Revoked', '1 key revoked');
  const afterRevoke: KeyStats = { ...afterSale, available: afterSale.available - 1, revoked: afterSale.revoked + 1 };
  expect(await statsOf(page)).toEqual(afterRevoke);
  await expectCards(page, afterRevoke);
  await expect(page.locator('code', { hasText: leaked })).toHaveCount(0);
  await expect(listed).toHaveCount(20);

  await Promise.all([admin.context.close(), buyerContext.close(), secondContext.close()]);
});

test('/admin shows a sign-in-required state and no key data to anyone else', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  const adminCalls: string[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/admin/')) adminCalls.push(req.url());
  });
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Sign-in required' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Sign in as an administrator' })).toHaveAttribute('href', '/');
  await expect(page.getByRole('button', { name: 'Unlock Key Management' })).toBeDisabled();
  await expect(page.locator('[data-stat]')).toHaveCount(0);
  await expect(page.locator('[data-access-key]')).toHaveCount(0);
  expect(adminCalls).toEqual([]);
  await shot(page, 'admin-sign-in-required');

  // A wrong master key is refused by the server, and nothing is shown.
  await page.getByLabel('Master Key', { exact: true }).fill('0'.repeat(128));
  await page.getByRole('button', { name: 'Unlock Key Management' }).click();
  await expectToast(page, 'Access Denied', 'Invalid creator credentials');
  await expect(page.locator('[data-stat]')).toHaveCount(0);

  // The creator's key opens the panel in this tab.
  await page.getByLabel('Master Key', { exact: true }).fill(E2E_MASTER_KEY);
  await page.getByRole('button', { name: 'Unlock Key Management' }).click();
  await expect(page.getByRole('heading', { name: 'Admin Panel · Key Management' })).toBeVisible();
  await expect(page.locator('[data-stat="Total Keys"]')).toHaveText(/^\d+$/);
  await context.close();
});

test('/validate asks for a key when the input is blank', async ({ browser }) => {
  const context = await browser.newContext({ baseURL: server.url });
  const page = await context.newPage();
  await page.goto('/validate');
  await expect(page.getByRole('heading', { name: 'Common issues' })).toBeVisible();
  for (const issue of ['Key already used', 'Key expired', 'Key not valid or corrupted', 'Not from an authorized source']) {
    await expect(page.getByText(issue, { exact: true })).toBeVisible();
  }
  await expect(page.getByLabel('Access Key')).toHaveAttribute('maxlength', '64');
  await expect(page.getByRole('link', { name: 'Purchase Access Key' })).toHaveAttribute('rel', 'noopener noreferrer');
  await page.getByLabel('Access Key').fill('   ');
  await page.getByRole('button', { name: 'Validate', exact: true }).click();
  await expectToast(page, 'Invalid Input', 'Please enter an access key');
  await expect(page.getByRole('region', { name: 'Validation result' })).toHaveCount(0);
  await context.close();
});
