/**
 * The new access token is the member's only credential: the token screen asks them to save it
 * (a labelled copy button, a download as a file) and to say they did before "Continue to Login",
 * and the browser warns before leaving the page until they have.
 */
import { readFile } from 'node:fs/promises';
import { expect, test } from './support/network';

test('the token screen keeps the member from leaving without saving their token', async ({ network }) => {
  const [key] = await network.mintKeys(1);
  const context = await network.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('tab', { name: 'Create Vault' }).click();
  await page.getByLabel('Access Key', { exact: true }).fill(key!);
  await page.getByRole('button', { name: 'Validate Access Key' }).click();
  await page.getByLabel('Username', { exact: true }).fill('carol');
  await page.getByRole('button', { name: 'Generate Secure Keys' }).click();
  const tokenField = page.getByLabel('Your Access Token', { exact: true });
  await expect(tokenField).toHaveValue(/^[0-9a-f]{64}$/);
  const token = await tokenField.inputValue();
  const confirm = page.getByLabel('I have saved my access token');
  const proceed = page.getByRole('button', { name: 'Continue to Login' });

  await test.step('Continue stays disabled until the member says the token is saved', async () => {
    await expect(confirm).not.toBeChecked();
    await expect(proceed).toBeDisabled();
  });

  await test.step('leaving the page asks first', async () => {
    const dialog = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const asked = await dialog;
    expect(asked.type()).toBe('beforeunload');
    await asked.dismiss();
    expect(page.isClosed()).toBe(false);
  });

  await test.step('"Copy token" puts it on the clipboard', async () => {
    await page.getByRole('button', { name: 'Copy token' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  });

  await test.step('"Download as file" saves a .txt holding the token', async () => {
    const downloaded = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download as file' }).click();
    const file = await downloaded;
    expect(file.suggestedFilename()).toBe('enclave-access-token.txt');
    expect(await readFile((await file.path())!, 'utf8')).toContain(token);
  });

  await test.step('once confirmed: no warning, and Continue prefills the sign-in', async () => {
    await confirm.check();
    await expect(proceed).toBeEnabled();
    let asked = false;
    page.on('dialog', (d) => {
      asked = true;
      void d.dismiss();
    });
    await proceed.click();
    await expect(page.getByLabel('Access Token', { exact: true })).toHaveValue(token);
    await page.getByRole('button', { name: 'Decrypt & Access' }).click();
    await expect(page).toHaveURL(/\/chat$/);
    expect(asked).toBe(false);
  });
});
