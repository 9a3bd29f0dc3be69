/**
 * The creator generates a sale batch of keys in the console and revokes unsold keys: one, a
 * selection, then all after confirming. The access-key database, in the console and on disk,
 * shows them revoked and the redeemed keys used by their members.
 */
import { expectKeyNotStored, openConsole, panel } from './support/creator-console';
import { readDatabase } from './support/database';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('key-revocation');

test('the creator generates a batch and revokes unused keys; the key database shows it', async ({ network }) => {
  const invites = await network.mintKeys(6);
  const members = [await network.join('alice', invites[0]), await network.join('carol', invites[1])];
  const unused = invites.slice(members.length);
  const page = await network.newCreatorPage();
  await page.goto('/super-admin');
  await openConsole(page);

  await test.step('generate a batch, revoke one key, several, then all (after confirming)', async () => {
    await page.getByRole('button', { name: 'Generate Access Keys' }).click();
    const generate = panel(page, 'Generate Access Keys');
    await generate.getByLabel('Quantity').fill('3');
    await generate.getByLabel('Purchase ID').fill('E2E-BATCH-7');
    await generate.getByLabel('Sale price in USD').fill('25');
    await generate.getByRole('button', { name: 'Generate Keys' }).click();
    await expectToast(page, 'Keys Generated Successfully', '3 access keys generated.');
    await expect(generate.locator('[data-generated-key]')).toHaveCount(3);
    const batch = await generate
      .locator('[data-generated-key]')
      .evaluateAll((li) => li.map((e) => e.getAttribute('data-generated-key') ?? ''));
    unused.push(...batch);
    await shot(page, '01-generate-keys');

    await page.getByRole('button', { name: 'Key Revocation' }).click();
    await expect(generate).toHaveCount(0);
    const revocation = panel(page, 'Key Revocation');
    await expect(revocation.locator('[data-revocable-key]')).toHaveCount(unused.length);
    const short = (k: string) => `${k.slice(0, 8)}…${k.slice(-8)}`;
    await revocation.getByRole('button', { name: `Revoke key ${short(unused[0]!)}` }).click();
    await expectToast(page, 'Key Revoked');
    await expect(revocation.locator('[data-revocable-key]')).toHaveCount(unused.length - 1);
    await revocation.getByLabel(`Select key ${short(unused[1]!)}`).check();
    await revocation.getByLabel(`Select key ${short(unused[2]!)}`).check();
    await shot(page, '02-key-revocation');
    await revocation.getByRole('button', { name: 'Revoke selected (2)' }).click();
    await expectToast(page, 'Bulk Revocation Complete', '2 keys revoked.');
    await expect(revocation.locator('[data-revocable-key]')).toHaveCount(unused.length - 3);

    await revocation.getByRole('button', { name: 'Revoke all active keys' }).click();
    const dialog = page.getByRole('dialog', { name: `Revoke all ${unused.length - 3} active keys?` });
    await expect(dialog).toBeVisible();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
    await expect(revocation.locator('[data-revocable-key]')).toHaveCount(unused.length - 3);
    await revocation.getByRole('button', { name: 'Revoke all active keys' }).click();
    await dialog.getByRole('button', { name: 'Revoke all' }).click();
    await expectToast(page, 'Bulk Revocation Complete', `${unused.length - 3} keys revoked.`);
    await expect(revocation.getByText('No active keys')).toBeVisible();
  });

  await test.step('after a reload the key is asked again; the key database shows the revocations', async () => {
    await page.reload();
    await expect(page.getByLabel('Master Key', { exact: true })).toBeVisible();
    await expectKeyNotStored(page);
    await openConsole(page);
    await expectKeyNotStored(page);
    const database = page.getByRole('region', { name: 'Access-Key Database' });
    for (const key of unused) {
      await expect(database.locator(`[data-key="${key}"] [data-key-status]`)).toHaveText('revoked');
    }
    for (const [i, m] of members.entries()) {
      const row = database.locator(`tr[data-key="${invites[i]}"]`);
      await expect(row.locator('[data-key-status]')).toHaveText('used');
      await expect(row.locator('[data-col="member"]')).toHaveText(m.username);
    }
    await database.getByLabel('Status').selectOption('revoked');
    await expect(database.locator('[data-key-id]')).toHaveCount(unused.length);
    await database.getByLabel('Status').selectOption('');
    await database.getByLabel('Search').fill('e2e-batch');
    await expect(database.locator('[data-key-id]')).toHaveCount(3);
    await expect(database.locator('[data-key-id]').first()).toContainText('E2E-BATCH-7');
    await database.getByLabel('Search').fill('carol');
    await expect(database.locator('[data-key-id]')).toHaveCount(1);
    await expect(database.locator('[data-key-id] [data-col="member"]')).toHaveText('carol');
    await database.getByLabel('Search').fill('');
    await expect(database.locator('[data-key-id]')).toHaveCount(invites.length + 3);
    await shot(page, '03-key-database');
  });

  await test.step('on disk: the revoked keys were never used; the members’ keys were', async () => {
    await network.close();
    await readDatabase(network.server, async (db) => {
      const keys = await db.query<{ key: string; status: string; used: boolean }>(
        'select key, status, used_at is not null as used from access_keys',
      );
      for (const k of unused) expect(keys.rows.find((r) => r.key === k)).toMatchObject({ status: 'revoked', used: false });
      for (const k of invites.slice(0, members.length)) expect(keys.rows.find((r) => r.key === k)).toMatchObject({ used: true });
    });
  });
});

test('with more keys than a page holds, both lists load more on request and "revoke all" reaches every key', async ({ network }) => {
  const keys = await network.mintKeys(230);
  const page = await network.newCreatorPage();
  await page.goto('/super-admin');
  await openConsole(page);

  const database = page.getByRole('region', { name: 'Access-Key Database' });
  await expect(database.locator('[data-key-count]')).toHaveAttribute('data-key-count', '230');
  await expect(database.locator('[data-key-id]')).toHaveCount(100);
  await database.getByRole('button', { name: 'Show more (100 of 230 shown)' }).click();
  await expect(database.locator('[data-key-id]')).toHaveCount(200);
  await database.getByRole('button', { name: 'Show more (200 of 230 shown)' }).click();
  await expect(database.locator('[data-key-id]')).toHaveCount(230);
  await expect(database.getByRole('button', { name: /^Show more/ })).toHaveCount(0);
  const shown = await database.locator('[data-key-id]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-key') ?? ''));
  expect(shown.toSorted()).toEqual(keys.toSorted());
  await shot(page, '04-key-database-paged');

  await page.getByRole('button', { name: 'Key Revocation' }).click();
  const revocation = panel(page, 'Key Revocation');
  await expect(revocation.locator('[data-revocable-key]')).toHaveCount(100);
  await expect(revocation.getByText('Select all 100 shown of 230 active keys')).toBeVisible();
  await revocation.getByRole('button', { name: 'Revoke all active keys' }).click();
  await page.getByRole('dialog', { name: 'Revoke all 230 active keys?' }).getByRole('button', { name: 'Revoke all' }).click();
  await expectToast(page, 'Bulk Revocation Complete', '230 keys revoked.');
  await expect(revocation.getByText('No active keys')).toBeVisible();
  await database.getByLabel('Status').selectOption('revoked');
  await expect(database.locator('[data-key-count]')).toHaveAttribute('data-key-count', '230');
});
