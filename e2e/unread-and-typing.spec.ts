/**
 * Two members live: typing shows on the other screen, messages in a conversation not in view
 * count as unread (in the member list and the tab title), and opening it shows where reading
 * stopped and clears the count. Scrolled up, new messages offer "Jump to latest".
 */
import type { Page } from '@playwright/test';
import { expectAccessible } from './support/a11y';
import { joinThroughUi, type Member } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';

const shot = storyShots('unread-and-typing');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const channel = (page: Page) => members(page).getByRole('button', { name: /General Channel/ });

/** As when the member switches to another tab and back (the browser would say the same). */
async function setVisibility(page: Page, state: 'visible' | 'hidden'): Promise<void> {
  await page.evaluate((value) => {
    Object.defineProperty(document, 'visibilityState', { value, configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
  }, state);
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(log(page).getByText(text, { exact: true })).toBeVisible();
}

test('typing and unread counts between two members', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  let alice: Member | undefined;
  let bob: Member | undefined;
  try {
    const [aliceKey, bobKey] = server.generateKeys(2);
    alice = await joinThroughUi(await browser.newContext({ baseURL: server.url }), aliceKey!, 'alice');
    bob = await joinThroughUi(await browser.newContext({ baseURL: server.url }), bobKey!, 'bob');
    const title = await alice.page.title();

    // Both in their DM: Bob types, Alice sees it (and it fades after he stops).
    await members(alice.page).getByRole('button', { name: /bob/ }).click();
    await members(bob.page).getByRole('button', { name: /alice/ }).click();
    await bob.page.getByRole('textbox', { name: 'Message' }).pressSequentially('Hello the');
    const indicator = alice.page.getByTestId('typing-indicator');
    await expect(indicator).toHaveText('bob is typing…');
    await expect(indicator).toHaveAttribute('aria-live', 'polite');
    await shot(alice.page, 'alice-sees-bob-typing');
    await expectAccessible(alice.page);
    await expect(indicator).toHaveText('', { timeout: 10_000 });

    // Bob opts out: typing again tells Alice nothing.
    await bob.page.getByLabel('Show others when I type').uncheck();
    await bob.page.getByRole('textbox', { name: 'Message' }).pressSequentially('re, quietly');
    await alice.page.waitForTimeout(1_500);
    await expect(indicator).toHaveText('');
    await bob.page.getByRole('textbox', { name: 'Message' }).fill('');

    // Bob writes twice in the channel while Alice stays in the DM.
    await channel(bob.page).click();
    await send(bob.page, 'First news in the channel');
    await send(bob.page, 'Second news in the channel');
    await expect(channel(alice.page).getByTestId('unread-count')).toHaveText('2 unread');
    await expect(alice.page).toHaveTitle(`(2) ${title}`);
    await expect(channel(alice.page)).toHaveAccessibleName(/General Channel 2 unread/);
    await shot(alice.page, 'alice-has-two-unread');
    await expectAccessible(alice.page);
    // On a phone the member list is a drawer: its button carries the total, the list the count.
    await alice.page.setViewportSize({ width: 390, height: 844 });
    const drawerTrigger = alice.page.getByRole('button', { name: /^Members/ });
    await expect(drawerTrigger.getByTestId('unread-count')).toHaveText('2 unread');
    await shot(alice.page, 'alice-has-two-unread-phone-header');
    await drawerTrigger.click();
    await expect(alice.page.getByRole('dialog').getByTestId('unread-count')).toHaveText('2 unread');
    await shot(alice.page, 'alice-has-two-unread-phone');
    await alice.page.keyboard.press('Escape');
    await alice.page.setViewportSize({ width: 1280, height: 720 });

    // Opening the channel: the divider sits right before the first unread message, the count goes.
    await channel(alice.page).click();
    await expect(log(alice.page).getByTestId('new-messages-divider')).toHaveText('New messages');
    const next = log(alice.page).locator('[data-testid="new-messages-divider"] + li');
    await expect(next).toContainText('First news in the channel');
    await expect(channel(alice.page).getByTestId('unread-count')).toHaveCount(0);
    await expect(alice.page).toHaveTitle(title);
    await shot(alice.page, 'alice-opens-the-channel');
    await expectAccessible(alice.page);

    // Read state is kept in this browser: a reload shows no unread count.
    await alice.page.reload();
    await expect(log(alice.page).getByText('Second news in the channel', { exact: true })).toBeVisible();
    await expect(members(alice.page).getByTestId('unread-count')).toHaveCount(0);
    await expect(alice.page).toHaveTitle(title);

    // The open conversation counts as read only while the tab is visible.
    await setVisibility(alice.page, 'hidden');
    await send(bob.page, 'Sent while Alice was away');
    await expect(channel(alice.page).getByTestId('unread-count')).toHaveText('1 unread');
    await expect(alice.page).toHaveTitle(`(1) ${title}`);
    await setVisibility(alice.page, 'visible');
    await expect(alice.page).toHaveTitle(title);
    await expect(channel(alice.page).getByTestId('unread-count')).toHaveCount(0);
    await expect(log(alice.page).locator('[data-testid="new-messages-divider"] + li')).toContainText('Sent while Alice was away');

    // Scrolled up when more arrives: the list stays put and offers a way down.
    for (let i = 1; i <= 10; i++) await send(bob.page, `Filler ${i}`);
    await expect(log(alice.page).getByText('Filler 10', { exact: true })).toBeInViewport();
    await log(alice.page).evaluate((el) => el.scrollTo({ top: 0 }));
    await send(bob.page, 'Arrived while Alice read back');
    const jump = alice.page.getByRole('button', { name: 'Jump to latest' });
    await expect(jump).toBeVisible();
    await expect(log(alice.page).getByText('Arrived while Alice read back', { exact: true })).not.toBeInViewport();
    await shot(alice.page, 'alice-offered-jump-to-latest');
    await jump.click();
    await expect(log(alice.page).getByText('Arrived while Alice read back', { exact: true })).toBeInViewport();
    await expect(jump).toHaveCount(0);
  } finally {
    await alice?.context.close();
    await bob?.context.close();
    await server.stop();
  }
});
