/**
 * A member opens a channel with a long history: the newest page is shown at the bottom, and
 * scrolling up loads the older messages above without moving what they were reading. The "Load
 * older messages" button stays as the keyboard's way.
 */
import type { Page } from '@playwright/test';
import { conversationLog, expectAccessible, expectNoSidewaysScroll, FIRST_PAGE, messageRows, seedChannel } from './support/history';
import { storyShots } from './support/shots';
import { expect, test } from './support/network';

const shot = storyShots('read-older-history-by-scrolling');
const TOTAL = 100;

/** Where the row of `text` is, from the top of the conversation's scrolling box. */
function rowTop(page: Page, text: string): Promise<number> {
  return conversationLog(page).evaluate((log, t) => {
    const row = Array.from(log.querySelectorAll('[data-message-id]')).find((r) => r.textContent?.includes(t));
    if (!row) throw new Error(`no row ${t}`);
    return row.getBoundingClientRect().top - log.getBoundingClientRect().top;
  }, text);
}

for (const viewport of [
  { width: 1366, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`scrolling up loads older messages in place (${viewport.width} px)`, async ({ network }) => {
    const alice = await network.join('alice');
    await seedChannel(network, TOTAL);
    await alice.page.setViewportSize(viewport);
    await network.signIn(alice.page, alice.token);
    const log = conversationLog(alice.page);

    // The newest page, at the bottom, every message decrypted.
    await expect(messageRows(alice.page)).toHaveCount(FIRST_PAGE);
    await expect(log.getByText(`History ${TOTAL}`, { exact: true })).toBeInViewport();
    await expect(log).not.toContainText('Decrypting…');
    const oldestShown = `History ${TOTAL - FIRST_PAGE + 1}`;
    await expect(log.getByRole('button', { name: 'Load older messages' })).toBeVisible();
    await shot(alice.page, `newest-page-${viewport.width}`);

    // The reader scrolls to the very top: older messages come in above, and the message that was
    // at the top stays where it was on screen.
    const before = await log.evaluate((el) => {
      el.scrollTop = 0;
      return el.scrollTop;
    });
    expect(before).toBe(0);
    const topBefore = await rowTop(alice.page, oldestShown);
    await expect(messageRows(alice.page)).toHaveCount(TOTAL);
    await expect(log.getByText('History 1', { exact: true })).toHaveCount(1);
    expect(Math.abs((await rowTop(alice.page, oldestShown)) - topBefore)).toBeLessThanOrEqual(2);
    await expect(log.getByText(oldestShown, { exact: true })).toBeInViewport();
    // Everything is in: no button, and the oldest message reads as text once scrolled to.
    await expect(log.getByRole('button', { name: /Load older messages|Loading…/ })).toHaveCount(0);
    await log.getByText('History 1', { exact: true }).scrollIntoViewIfNeeded();
    await expect(log.getByText('History 1', { exact: true })).toBeInViewport();
    await expect(log).not.toContainText('Decrypting…');
    await expectNoSidewaysScroll(alice.page);
    await shot(alice.page, `all-history-${viewport.width}`);
    await expectAccessible(alice.page);
  });
}

test('the keyboard loads older messages with the button', async ({ network }) => {
  const alice = await network.join('alice');
  await seedChannel(network, FIRST_PAGE + 10);
  await network.signIn(alice.page, alice.token);
  await expect(messageRows(alice.page)).toHaveCount(FIRST_PAGE);
  const button = conversationLog(alice.page).getByRole('button', { name: 'Load older messages' });
  await button.focus();
  await alice.page.keyboard.press('Enter');
  await expect(messageRows(alice.page)).toHaveCount(FIRST_PAGE + 10);
  await expect(button).toHaveCount(0);
});
