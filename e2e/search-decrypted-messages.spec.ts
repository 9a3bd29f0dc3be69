/**
 * A member searches the conversation's messages decrypted in their tab: case and Unicode form do
 * not matter, results show sender and time, choosing one (by keyboard too) scrolls to it and
 * highlights it, and nothing of the text lands in the browser's storage.
 */
import type { Page } from '@playwright/test';
import { browserData } from './support/browser-data';
import { conversationLog, expectAccessible, expectNoSidewaysScroll, messageRows, seedChannel } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('search-decrypted-messages');

/** Everything this origin keeps in local and session storage and in its IndexedDB databases, as text. */
function storedText(page: Page): Promise<string> {
  return page.evaluate(async () => {
    const dumps: unknown[] = [{ localStorage: { ...localStorage }, sessionStorage: { ...sessionStorage } }];
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        const all = db.transaction(store).objectStore(store).getAll();
        dumps.push(await new Promise((resolve) => (all.onsuccess = () => resolve({ [store]: all.result }))));
      }
      db.close();
    }
    return JSON.stringify(dumps);
  });
}

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(conversationLog(page).getByText(text, { exact: true })).toBeVisible();
}

for (const viewport of [
  { width: 1366, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`searching the conversation finds, scrolls to and highlights a message (${viewport.width} px)`, async ({ network }) => {
    const alice = await network.join('alice');
    const bob = await network.join('bob');
    // Bob writes one with a composed "é"; forty more push it far up the list.
    await write(bob.page, 'Meet at the Caf\u00e9 Central at noon');
    await seedChannel(network, 40);
    await write(bob.page, 'Or the cafe\u0301 by the station?');
    await alice.page.setViewportSize(viewport);
    const log = conversationLog(alice.page);
    await expect(messageRows(alice.page)).toHaveCount(42);

    await alice.page.getByRole('button', { name: 'Search messages' }).click();
    const field = alice.page.getByRole('searchbox', { name: 'Search this conversation' });
    await expect(field).toBeFocused();
    await expect(alice.page.getByText(/never written to this browser’s storage/)).toBeVisible();
    // Upper case with a decomposed accent finds both spellings, newest first.
    await field.fill('CAFE\u0301');
    const results = alice.page.getByRole('list', { name: 'Search results' }).getByRole('button');
    await expect(alice.page.getByRole('status').filter({ hasText: '2 found' })).toBeVisible();
    await expect(results).toHaveCount(2);
    await expect(results.nth(0)).toContainText('bob');
    await expect(results.nth(0)).toContainText('Or the cafe\u0301 by the station?');
    await expect(results.nth(0).locator('time')).toBeVisible();
    await expect(results.nth(1)).toContainText('Meet at the Caf\u00e9 Central at noon');
    await expectNoSidewaysScroll(alice.page);
    await shot(alice.page, `results-${viewport.width}`);
    await expectAccessible(alice.page);

    // By keyboard: down to the second result, Enter: the old message is scrolled to and highlighted.
    await alice.page.keyboard.press('ArrowDown');
    await expect(results.nth(0)).toBeFocused();
    await alice.page.keyboard.press('ArrowDown');
    await expect(results.nth(1)).toBeFocused();
    await alice.page.keyboard.press('Enter');
    const chosen = log.locator('[data-message-id]', { hasText: 'Meet at the Caf\u00e9 Central at noon' });
    await expect(chosen).toHaveAttribute('data-highlighted', 'true');
    await expect(chosen).toBeInViewport();
    await expect(chosen).toBeFocused();
    await shot(alice.page, `chosen-${viewport.width}`);

    // Nothing found says so; Escape closes the search.
    await field.fill('no such words');
    await expect(alice.page.getByRole('status').filter({ hasText: 'No messages found' })).toBeVisible();
    await field.press('Escape');
    await expect(field).toHaveCount(0);

    // Neither the texts nor the search were written to the browser's storage.
    expect((await browserData(alice.page)).caches).toBe(0);
    const stored = await storedText(alice.page);
    expect(stored).toContain('localStorage');
    for (const text of ['Caf', 'station', 'History', 'no such words']) expect(stored).not.toContain(text);
  });
}
