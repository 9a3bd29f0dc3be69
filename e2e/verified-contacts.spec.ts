/**
 * Two members compare their safety number and one marks the other verified. When the server later
 * hands out other keys for that member (here: its database is changed, as a compromised server
 * could do; the members' browsers are left alone), the mark is gone and the conversation warns
 * loudly until the member compares the new number and decides.
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from '@playwright/test';
import { changeDatabase } from './support/database';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('verified-contacts');

const SAFETY_NUMBER = /^(\d{5} ){11}\d{5}$/;
const CHANGED = "bob's safety number changed. Verify again before trusting messages.";

const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const entry = (page: Page, name: string) => members(page).getByRole('listitem').filter({ hasText: name });
const dialog = (page: Page, name: string) => page.getByRole('dialog', { name: `Safety number with ${name}` });

/** The safety number a page's open dialog shows, once computed. */
async function shownNumber(page: Page, name: string): Promise<string> {
  const number = dialog(page, name).getByLabel('Safety number', { exact: true });
  await expect(number).toHaveAttribute('data-safety-number', SAFETY_NUMBER);
  return (await number.getAttribute('data-safety-number'))!;
}

/** A valid key pair of each kind, as base64 SPKI: keys the server could hand out for anyone. */
function otherPublicKeys() {
  const spki = { type: 'spki', format: 'der' } as const;
  return {
    encryption: generateKeyPairSync('rsa', { modulusLength: 2048, publicExponent: 65537 }).publicKey.export(spki).toString('base64'),
    signing: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export(spki).toString('base64'),
  };
}

test('a member verifies a contact; a changed key takes the mark off and warns until compared again', async ({ network, server }) => {
  const bob = await network.join('bob');
  const alice = await network.join('alice');
  const page = alice.page;

  // Alice opens bob's safety number from the member list: digits and a QR code that loaded.
  await entry(page, 'bob').getByRole('button', { name: 'Safety number' }).click();
  const number = await shownNumber(page, 'bob');
  const qr = dialog(page, 'bob').getByRole('img', { name: 'QR code of the safety number with bob' });
  await expect(qr).toHaveAttribute('src', /^data:image\/png;base64,/);
  expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
  await expect(dialog(page, 'bob').getByText('Not verified')).toBeVisible();

  // Bob's browser shows the same number for alice, and the fingerprints cross over.
  await members(bob.page).getByRole('button', { name: /alice/ }).click();
  await entry(bob.page, 'alice').getByRole('button', { name: 'Safety number' }).click();
  expect(await shownNumber(bob.page, 'alice')).toBe(number);
  const bobSees = dialog(bob.page, 'alice');
  await expect(dialog(page, 'bob').locator('[data-fingerprint="own"]')).toHaveText(
    (await bobSees.locator('[data-fingerprint="contact"]').textContent())!,
  );
  await expect(dialog(page, 'bob').locator('[data-fingerprint="contact"]')).toHaveText(
    (await bobSees.locator('[data-fingerprint="own"]').textContent())!,
  );
  await shot(bob.page, 'bob-safety-number');
  await bob.page.keyboard.press('Escape');

  // Alice marks bob verified; closing returns focus to the button that opened the dialog.
  await dialog(page, 'bob').getByRole('button', { name: 'Mark as verified' }).click();
  await expect(dialog(page, 'bob').getByRole('button', { name: 'Clear verification' })).toBeVisible();
  await shot(page, 'verified-dialog');
  await page.keyboard.press('Escape');
  await expect(dialog(page, 'bob')).toBeHidden();
  await expect(entry(page, 'bob').getByRole('button', { name: 'Safety number' })).toBeFocused();
  await expect(entry(page, 'bob').getByRole('img', { name: 'Verified' })).toBeVisible();

  // The mark is in the direct message's header too, and lasts a reload.
  await members(page).getByRole('button', { name: /bob/ }).click();
  await expect(page.getByRole('heading', { name: /Direct message · bob/ }).getByRole('img', { name: 'Verified' })).toBeVisible();
  await bob.page.getByRole('textbox', { name: 'Message' }).fill('Signed with the key alice verified');
  await bob.page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(page.getByText('Signed with the key alice verified', { exact: true })).toBeVisible();
  await page.reload();
  await expect(entry(page, 'bob').getByRole('img', { name: 'Verified' })).toBeVisible();
  await shot(page, 'verified-mark');

  // The server now hands out other keys for bob.
  const keys = otherPublicKeys();
  await changeDatabase(server, (db) =>
    db.query('update users set encryption_public_key = $1, signing_public_key = $2 where username = $3', [
      keys.encryption,
      keys.signing,
      'bob',
    ]),
  );
  await page.reload();
  await expect(page.locator('[data-connection-state="authenticated"]')).toBeVisible();

  // In the channel: the loud warning, the mark gone, the changed-key sign instead.
  const banner = page.getByRole('alert').filter({ hasText: CHANGED });
  await expect(banner).toBeVisible();
  await expect(entry(page, 'bob').getByRole('img', { name: 'Key changed' })).toBeVisible();
  await expect(entry(page, 'bob').getByRole('img', { name: 'Verified' })).toHaveCount(0);
  await shot(page, 'key-changed-channel');

  // In the direct message: the same warning, beside each message's own.
  await members(page).getByRole('button', { name: /bob/ }).click();
  await expect(banner).toBeVisible();
  await expect(page.getByRole('heading', { name: /Direct message · bob/ }).getByRole('img', { name: 'Verified' })).toHaveCount(0);
  await expect(page.getByText("⚠ Sender's key changed — this message cannot be verified. Compare the safety number.")).toBeVisible();
  await shot(page, 'key-changed-dm');

  // The banner leads to the new safety number, which differs and says why.
  await banner.getByRole('button', { name: 'Compare safety number with bob' }).click();
  const changedNumber = await shownNumber(page, 'bob');
  expect(changedNumber).not.toBe(number);
  await expect(dialog(page, 'bob').getByRole('alert')).toContainText("bob's keys changed since this browser pinned them");
  await expect(dialog(page, 'bob').getByText('Not verified')).toBeVisible();
  await shot(page, 'key-changed-dialog');
  // On a phone the dialog fits the width and scrolls within the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  const box = (await dialog(page, 'bob').boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  expect(await dialog(page, 'bob').evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
  await shot(page, 'key-changed-dialog-390');
  await page.setViewportSize({ width: 1280, height: 720 });

  // Acknowledging without verifying ends the warning; the contact stays unverified.
  await dialog(page, 'bob').getByRole('button', { name: 'Acknowledge without verifying' }).click();
  await expect(banner).toBeHidden();
  await expect(dialog(page, 'bob').getByRole('alert')).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(entry(page, 'bob').getByRole('img', { name: 'Key changed' })).toHaveCount(0);
  await expect(entry(page, 'bob').getByRole('img', { name: 'Verified' })).toHaveCount(0);

  // /security lists bob, unverified; its safety number verifies him again.
  await page.getByRole('link', { name: 'Security' }).click();
  const row = page.getByRole('list', { name: 'Pinned contacts' }).getByRole('listitem').filter({ hasText: 'bob' });
  await expect(row.getByText('Matches pin')).toBeVisible();
  await row.getByRole('button', { name: 'Safety number' }).click();
  expect(await shownNumber(page, 'bob')).toBe(changedNumber);
  await dialog(page, 'bob').getByRole('button', { name: 'Mark as verified' }).click();
  await expect(dialog(page, 'bob').getByRole('button', { name: 'Clear verification' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(row.getByText('Verified')).toBeVisible();
  await shot(page, 'security-verified');
});
