/**
 * A mention that notifies: Alice mutes the general channel and reads a DM; a plain message in the
 * channel stays silent, while Bob's "@alice look", completed from the member list as he types
 * `@al`, notifies her all the same and is highlighted in the text for both of them.
 */
import type { BrowserContext, Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { conversationLog } from './support/history';
import { joinThroughUi } from './support/members';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('mention-that-notifies');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });

type Shown = { title: string; body: string };

/** Records every `new Notification(…)` of the page, then lets the browser's own constructor run. */
async function recordNotifications(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const Native = window.Notification;
    const shown: Shown[] = [];
    Object.assign(window, { shownNotifications: shown });
    window.Notification = class extends Native {
      constructor(title: string, options?: NotificationOptions) {
        shown.push({ title, body: options?.body ?? '' });
        super(title, options);
      }
    };
  });
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as { shownNotifications: Shown[] }).shownNotifications);

test('a mention that notifies: muted channel, completed @alice, highlighted for everyone', async ({ network }) => {
  const aliceContext = await network.newContext();
  await aliceContext.grantPermissions(['notifications'], { origin: network.url });
  await recordNotifications(aliceContext);
  const keys = await network.mintKeys(1);
  const alice = await joinThroughUi(aliceContext, keys[0]!, 'alice');
  const bob = await network.join('bob');

  // Alice turns notifications on, with details, and mutes the general channel.
  await alice.page.getByLabel('Desktop notifications').check();
  await alice.page.getByLabel('Show sender and message text').check();
  await alice.page.getByLabel('Mute this conversation (mentions still notify)').check();
  // She reads a DM with Bob: the channel is out of view.
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(alice.page.getByLabel('Mute this conversation (mentions still notify)')).not.toBeChecked();

  const composer = bob.page.getByRole('textbox', { name: 'Message' });
  await composer.fill('Just chatting');
  await bob.page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(conversationLog(bob.page).getByText('Just chatting', { exact: true })).toBeVisible();

  // Bob types @al: the member list offers alice; the keyboard chooses her.
  await composer.fill('');
  await composer.pressSequentially('@al');
  const list = bob.page.getByRole('listbox', { name: 'Members to mention' });
  await expect(list.getByRole('option')).toHaveText(['@alice']);
  await expect(list.getByRole('option', { name: '@alice' })).toHaveAttribute('aria-selected', 'true');
  const activeId = await list.getByRole('option', { name: '@alice' }).getAttribute('id');
  await expect(composer).toHaveAttribute('aria-activedescendant', activeId!);
  await expectAccessible(bob.page);
  await shot(bob.page, 'completion-1366');
  // Escape closes the list for this mention and keeps the text; a new @ opens it again.
  await composer.press('Escape');
  await expect(list).toHaveCount(0);
  await composer.pressSequentially('i');
  await expect(composer).toHaveValue('@ali');
  await expect(list).toHaveCount(0);
  await composer.fill('');
  await composer.pressSequentially('@ali');
  await expect(list.getByRole('option')).toHaveText(['@alice']);
  await composer.press('Enter');
  await expect(list).toHaveCount(0);
  await expect(composer).toHaveValue('@alice ');
  await composer.pressSequentially('look');
  await composer.press('Enter');
  const mention = conversationLog(bob.page).locator('mark', { hasText: '@alice' });
  await expect(mention).toBeVisible();
  await expect(conversationLog(bob.page).getByText('@alice look', { exact: true })).toBeVisible();

  // Alice hears the mention, and only it: the plain message before it in the muted channel was silent.
  await expect.poll(() => shown(alice.page)).toEqual([{ title: 'bob', body: '@alice look' }]);

  // Back in the channel, the mention is highlighted for Alice too.
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(conversationLog(alice.page).locator('mark', { hasText: '@alice' })).toBeVisible();
  await expect(alice.page.getByLabel('Mute this conversation (mentions still notify)')).toBeChecked();
  await expectAccessible(alice.page);
  await expectNoOverflow(alice.page);
  await shot(alice.page, 'highlight-1366');

  // On a phone, the list fits the screen.
  await bob.page.setViewportSize({ width: 390, height: 844 });
  await composer.pressSequentially('@a');
  await expect(list.getByRole('option')).toHaveText(['@alice']);
  await expectNoOverflow(bob.page);
  await shot(bob.page, 'completion-390');
  // The mouse chooses too.
  await list.getByRole('option', { name: '@alice' }).click();
  await expect(composer).toHaveValue('@alice ');
});
