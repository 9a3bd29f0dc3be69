/**
 * A member's message shows its delivery state: being sent, sent (stored by the server), or not
 * sent with Retry when the network fails. A retry of a message the server stored without its
 * answer reaching the browser stores it once, not twice.
 */
import type { Page, Route } from '@playwright/test';
import { readDatabase } from './support/database';
import { conversationLog, expectAccessible, expectNoSidewaysScroll } from './support/history';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('send-fails-then-retried');
const SEND = '**/api/messages/send';

async function write(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
}

for (const viewport of [
  { width: 1366, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`a send that fails is kept with Retry, and a retry sends it once (${viewport.width} px)`, async ({ network, server }) => {
    const alice = await network.join('alice');
    const bob = await network.join('bob');
    await alice.page.setViewportSize(viewport);
    const log = conversationLog(alice.page);

    // Sent: the stored message carries the mark.
    await write(alice.page, 'First, on a good network');
    const first = log.locator('[data-message-id]', { hasText: 'First, on a good network' });
    await expect(first.getByText('Sent', { exact: true })).toBeAttached();

    // The network drops every send (the client resends twice, then gives up): "Sending…", then
    // "Not sent" with the text kept and Retry offered; the composer is free for the next one.
    let attempts = 0;
    await alice.page.route(SEND, async (route: Route) => {
      attempts += 1;
      await route.abort('internetdisconnected');
    });
    await write(alice.page, 'Second, while offline');
    const pending = log.locator('[data-outgoing]', { hasText: 'Second, while offline' });
    await expect(pending).toHaveAttribute('data-outgoing', 'sending');
    await expect(pending.getByText('Sending…')).toBeVisible();
    await expect(alice.page.getByRole('textbox', { name: 'Message' })).toHaveValue('');
    await expect(pending).toHaveAttribute('data-outgoing', 'failed', { timeout: 15_000 });
    await expect(pending.getByText('Not sent')).toBeVisible();
    expect(attempts).toBe(3);
    await expectNoSidewaysScroll(alice.page);
    await shot(alice.page, `not-sent-${viewport.width}`);
    await expectAccessible(alice.page);

    // The network comes back, but the first retry's answer is lost after the server stored it.
    await alice.page.unroute(SEND);
    // The retry is held until "Sending…" has been seen: once stored, the message's own frame
    // replaces the pending entry within milliseconds, faster than a look can be sure to catch.
    let stored = 0;
    let release!: () => void;
    const seen = new Promise<void>((resolve) => (release = resolve));
    await alice.page.route(SEND, async (route: Route) => {
      if (stored > 0) return route.continue();
      stored += 1;
      await seen;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await pending.getByRole('button', { name: 'Retry' }).click();
    await expect(pending.getByText('Sending…')).toBeVisible();
    release();
    // The client's own resend posts the very same request: the server answers with what it stored.
    const second = log.locator('[data-message-id]', { hasText: 'Second, while offline' });
    await expect(second.getByText('Sent', { exact: true })).toBeAttached({ timeout: 15_000 });
    await expect(log.locator('[data-outgoing]')).toHaveCount(0);
    await expect(log.getByText('Second, while offline', { exact: true })).toHaveCount(1);
    await shot(alice.page, `sent-after-retry-${viewport.width}`);

    // Bob reads each message once; the database holds two messages.
    const bobLog = conversationLog(bob.page);
    await expect(bobLog.getByText('Second, while offline', { exact: true })).toHaveCount(1);
    await expect(bobLog.locator('[data-message-id]')).toHaveCount(2);

    // A message that failed can be discarded.
    await alice.page.route(SEND, (route: Route) => route.abort('internetdisconnected'));
    await write(alice.page, 'Third, given up');
    const third = log.locator('[data-outgoing]', { hasText: 'Third, given up' });
    await expect(third).toHaveAttribute('data-outgoing', 'failed', { timeout: 15_000 });
    await third.getByRole('button', { name: 'Discard' }).click();
    await expect(third).toHaveCount(0);

    await network.close();
    const count = await readDatabase(
      server,
      async (db) => (await db.query<{ n: number }>('select count(*)::int as n from messages')).rows[0]?.n,
    );
    expect(count).toBe(2);
  });
}
