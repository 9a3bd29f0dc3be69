/** A conversation with a history longer than one page, and what the chat's list shows of it. */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { TestMember } from '../../server/src/testing/member';
import type { Network } from './network';

/** The chat's newest page (limits.historyPageSize): more than this needs loading older pages. */
export const FIRST_PAGE = 50;

export const conversationLog = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
export const messageRows = (page: Page) => conversationLog(page).locator('[data-message-id]');

/**
 * `count` messages "History 1" … in the general channel, from four members who join now and send
 * through the real client (signed, encrypted for everyone present), one after another in rounds,
 * each within the send limit. Members who are to read them must have joined before.
 */
export async function seedChannel(network: Network, count: number): Promise<void> {
  const keys = await network.mintKeys(4);
  const senders = await Promise.all(keys.map((key, i) => TestMember.join(network.server.url, key, `sender${i + 1}`)));
  for (let n = 1; n <= count; n++) {
    const outcome = await senders[(n - 1) % senders.length]!.send('all', `History ${n}`);
    expect(outcome.status, `History ${n}`).toBe(201);
  }
}

/** The page is no wider than its window (no sideways scrolling). */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const { scroll, inner } = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  expect(scroll).toBeLessThanOrEqual(inner);
}

/** axe finds no serious or critical violation on the page as it is. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}
