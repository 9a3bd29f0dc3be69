/**
 * Members behind one address (every browser here is 127.0.0.1) cannot lock each other out:
 * wrong tokens are limited per browser and per address (docs/security.md §9), a right token never
 * is. One browser fails until it is refused; the rest of the address fails until it is refused
 * too; another member's right token still signs in.
 */
import { randomBytes } from 'node:crypto';
import { limits, routes } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { signIn } from './support/members';
import { expect, test } from './support/network';
import { expectToast } from './support/toasts';

// Going over the client's limit is a tamper detection: the login screen then calls the decoys.
test.use({ tamperCountermeasures: 'expected', rateLimitWindowMs: 60_000 });

const wrongToken = () => randomBytes(32).toString('hex');

/** Submits a token on the login screen and returns the status of the login call it made. */
async function submitToken(page: Page, token: string): Promise<number> {
  const answered = page.waitForResponse((r) => r.url().endsWith(routes.login.path));
  await page.getByLabel('Access Token', { exact: true }).fill(token);
  await page.getByRole('button', { name: 'Decrypt & Access' }).click();
  return (await answered).status();
}

test('wrong tokens from one browser never stop another member’s right token', async ({ network }) => {
  const alice = await network.join('alice');
  await alice.context.close();

  const mallory = await (await network.newContext()).newPage();
  await mallory.goto('/');
  await test.step('one browser: five wrong tokens, then "Security Violation" before anything is sent', async () => {
    for (let i = 0; i < limits.loginAttempts; i++) expect(await submitToken(mallory, wrongToken())).toBe(401);
    await expectToast(mallory, 'Authentication Failed');
    let sent = false;
    mallory.on('request', (r) => {
      if (r.url().endsWith(routes.login.path)) sent = true;
    });
    await mallory.getByLabel('Access Token', { exact: true }).fill(wrongToken());
    await mallory.getByRole('button', { name: 'Decrypt & Access' }).click();
    await expectToast(mallory, 'Security Violation', 'Too many attempts detected. Access temporarily blocked.');
    expect(sent).toBe(false);
  });

  await test.step('another browser at the same address signs in with the right token', async () => {
    const page = await (await network.newContext()).newPage();
    await signIn(page, alice.token);
    await expect(page).toHaveURL(/\/chat$/);
    await page.context().close();
  });

  await test.step('fresh browser ids buy no more guesses: the address is refused after its limit', async () => {
    const api = (await network.newContext()).request;
    const statuses: number[] = [];
    for (let i = limits.loginAttempts; i <= limits.loginFailuresPerAddress; i++) {
      const res = await api.post(routes.login.path, { data: { loginKey: wrongToken(), browserId: randomBytes(16).toString('hex') } });
      statuses.push(res.status());
    }
    expect(statuses).toEqual([...Array<number>(limits.loginFailuresPerAddress - limits.loginAttempts).fill(401), 429]);

    const fresh = await (await network.newContext()).newPage();
    await fresh.goto('/');
    expect(await submitToken(fresh, wrongToken())).toBe(429);
    await expectToast(fresh, 'Security Violation', 'Too many attempts detected. Access temporarily blocked.');
  });

  await test.step('and still the right token gets in from that address', async () => {
    const page = await (await network.newContext()).newPage();
    await signIn(page, alice.token);
    await expect(page).toHaveURL(/\/chat$/);
  });
});

test('a cut-off token or a failed connection is no wrong token: the right one still gets in', async ({ network }) => {
  const bob = await network.join('bob');
  await bob.context.close();

  const page = await (await network.newContext()).newPage();
  await page.goto('/');
  const field = page.getByLabel('Access Token', { exact: true });
  const submit = page.getByRole('button', { name: 'Decrypt & Access' });
  await test.step('too-short tokens are refused in the browser and not counted', async () => {
    for (let i = 0; i <= limits.loginAttempts; i++) {
      await field.fill(bob.token.slice(0, 40));
      await submit.click();
      await expectToast(page, 'Invalid Access Token', 'Access token must be at least 64 characters long');
    }
  });
  await test.step('sign-ins that never reach the server are not counted', async () => {
    await page.route(`**${routes.login.path}`, (route) => route.abort('internetdisconnected'));
    for (let i = 0; i <= limits.loginAttempts; i++) {
      const failed = page.waitForEvent('requestfailed', (r) => r.url().endsWith(routes.login.path));
      await field.fill(bob.token);
      await submit.click();
      await failed;
      await expectToast(page, 'Authentication Failed');
    }
    await page.unroute(`**${routes.login.path}`);
  });
  await test.step('the right token signs in', async () => {
    await field.fill(bob.token);
    await submit.click();
    await expect(page).toHaveURL(/\/chat$/);
  });
});
