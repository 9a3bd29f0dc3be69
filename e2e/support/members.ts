/** A new member, as a person would become one: through the login screen, in their own browser context. */
import { sessionResponseSchema } from '@enclave/protocol';
import { expect, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test';
import { E2E_MASTER_KEY } from './server';

export type Member = { context: BrowserContext; page: Page; username: string; token: string };

/**
 * Create vault with an invite key, note the token shown once, sign in, land on /chat. The context
 * (made with the server's `baseURL`) is the member's browser; attach any recording before.
 */
export async function joinThroughUi(context: BrowserContext, inviteKey: string, username: string): Promise<Member> {
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('tab', { name: 'Create Vault' }).click();
  await page.getByLabel('Access Key', { exact: true }).fill(inviteKey);
  await page.getByRole('button', { name: 'Validate Access Key' }).click();
  await page.getByLabel('Username', { exact: true }).fill(username);
  await page.getByRole('button', { name: 'Generate Secure Keys' }).click();
  const tokenField = page.getByLabel('Your Access Token', { exact: true });
  await expect(tokenField).toHaveValue(/^[0-9a-f]{64}$/);
  const token = await tokenField.inputValue();
  await page.getByLabel('I have saved my access token').check();
  await page.getByRole('button', { name: 'Continue to Login' }).click();
  await expect(page.getByLabel('Access Token', { exact: true })).toHaveValue(token);
  await page.getByRole('button', { name: 'Decrypt & Access' }).click();
  await expect(page).toHaveURL(/\/chat$/);
  await expect(page.locator('[data-connection-state="authenticated"]')).toBeVisible();
  return { context, page, username, token };
}

/** Sign in on the login screen with a token. */
export async function signIn(page: Page, token: string): Promise<void> {
  await page.goto('/');
  await page.getByLabel('Access Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Decrypt & Access' }).click();
}

/** The creator promotes a member to admin, as the /super-admin console would (by master key, from another client). */
export async function promoteToAdmin(request: APIRequestContext, serverUrl: string, member: Member): Promise<void> {
  const me = await member.page.request.get('/api/auth/me');
  const { user } = sessionResponseSchema.parse(await me.json());
  const res = await request.post(`${serverUrl}/api/super-admin/set-role`, {
    headers: { Authorization: `SuperAdmin ${E2E_MASTER_KEY}` },
    data: { userId: user.id, role: 'admin' },
  });
  expect(res.status()).toBe(200);
}
