/**
 * A member who has read the channel opens it again in the same browser: the newest page is drawn
 * from the browser's sealed copy before the server has answered, and once it answers every
 * message is there once, in order. Nothing of a message is readable in IndexedDB at any time,
 * and after logout the copy is gone.
 */
import type { Page, Route } from '@playwright/test';
import { TestMember } from '../server/src/testing/member';
import { conversationLog, FIRST_PAGE, messageRows, seedChannel } from './support/history';
import { expect, test } from './support/network';

const TOTAL = FIRST_PAGE + 10;

/** The records of the `history` store, each value's raw bytes as text (both ways a search could read them). */
function historyStore(page: Page): Promise<{ records: number; valueKeys: string[][]; text: string; largest: number }> {
  return page.evaluate(async () => {
    if (!(await indexedDB.databases()).some((d) => d.name === 'enclave')) return { records: 0, valueKeys: [], text: '', largest: 0 };
    return new Promise((resolve, reject) => {
      const open = indexedDB.open('enclave');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        if (!db.objectStoreNames.contains('history')) {
          db.close();
          return resolve({ records: 0, valueKeys: [], text: '', largest: 0 });
        }
        const tx = db.transaction('history', 'readonly');
        const keys = tx.objectStore('history').getAllKeys();
        const values = tx.objectStore('history').getAll();
        tx.oncomplete = () => {
          db.close();
          const parts: string[] = keys.result.map(String);
          const valueKeys: string[][] = [];
          let largest = 0;
          for (const value of values.result as Record<string, unknown>[]) {
            valueKeys.push(Object.keys(value).sort());
            for (const field of Object.values(value)) {
              const bytes = field instanceof ArrayBuffer ? new Uint8Array(field) : field instanceof Uint8Array ? field : null;
              if (!bytes) continue;
              largest = Math.max(largest, bytes.length);
              parts.push(new TextDecoder().decode(bytes), String.fromCharCode(...bytes));
            }
          }
          resolve({ records: values.result.length, valueKeys, text: parts.join('\n'), largest });
        };
      };
    });
  });
}

/** The numbers of the "History n" rows shown, top to bottom. */
async function shownNumbers(page: Page): Promise<number[]> {
  const texts = await messageRows(page).allTextContents();
  return texts.map((t) => Number(/History (\d+)/.exec(t)?.[1] ?? NaN));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test('the channel is drawn from this browser before the server answers, then each message once, in order', async ({ network }) => {
  const alice = await network.join('alice');
  await seedChannel(network, TOTAL);
  const { page } = alice;
  await network.signIn(page, alice.token);
  await expect(messageRows(page)).toHaveCount(FIRST_PAGE);
  await expect(conversationLog(page)).not.toContainText('Decrypting…');

  // The page she read is written to the sealed copy: records of {iv, ciphertext} only, nothing readable.
  await expect.poll(async () => (await historyStore(page)).records).toBeGreaterThanOrEqual(2);
  // A write made while messages were still being decrypted holds none of them; the page is there
  // once a record is as large as 50 messages (each sealed message is more than 200 bytes).
  await expect.poll(async () => (await historyStore(page)).largest).toBeGreaterThan(FIRST_PAGE * 200);
  const expectNothingReadable = async () => {
    const stored = await historyStore(page);
    for (const keys of stored.valueKeys) expect(keys).toEqual(['ciphertext', 'iv']);
    for (const clear of ['History', 'general', 'sender1', 'alice', '"messages"']) expect(stored.text).not.toContain(clear);
  };
  await expectNothingReadable();

  // She opens the page again (the session restores); the history request is held until she has seen the page.
  const held: Route[] = [];
  await page.route('**/api/messages/recent?**', (route) => void held.push(route));
  await page.reload();
  await expect(messageRows(page)).toHaveCount(FIRST_PAGE);
  await expect(conversationLog(page)).not.toContainText('Decrypting…');
  expect(await shownNumbers(page)).toEqual(range(TOTAL - FIRST_PAGE + 1, TOTAL));
  await expect.poll(() => held.length).toBe(1);
  await expectNothingReadable();

  // A message arrives while the answer is still held: it comes live, in its place.
  const [key] = await network.mintKeys(1);
  const late = await TestMember.join(network.server.url, key!, 'latecomer');
  expect((await late.send('all', `History ${TOTAL + 1}`)).status).toBe(201);
  await expect(conversationLog(page).getByText(`History ${TOTAL + 1}`, { exact: true })).toBeVisible();

  // The server answers: its newest page is what stays, each message once, in order, none missing.
  for (const route of held.splice(0)) await route.continue();
  await page.unroute('**/api/messages/recent?**');
  await expect.poll(() => shownNumbers(page)).toEqual(range(TOTAL + 1 - FIRST_PAGE + 1, TOTAL + 1));
  await expect(conversationLog(page)).not.toContainText('Decrypting…');
  await expectNothingReadable();

  // Logout takes the copy with the keys.
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page).toHaveURL(new URL('/', network.server.url).toString());
  await expect.poll(async () => (await historyStore(page)).records).toBe(0);
});
