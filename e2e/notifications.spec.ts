/**
 * Desktop notifications, opt-in: Alice turns them on and hears "New message" for the channel while
 * she is in a DM, then the sender and text once she chooses to show them; a click opens the
 * channel, and with it in view (tab visible) no notification comes. Bob's browser refuses the
 * permission and the control says so.
 */
import AxeBuilder from '@axe-core/playwright';
import type { BrowserContext, Page } from '@playwright/test';
import { joinThroughUi, type Member } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';

const shot = storyShots('notifications');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

type Shown = { title: string; body: string; tag: string };
type Recorder = { shown: Shown[]; instances: Notification[] };

/**
 * Records every `new Notification(…)` of the page (the app's CSP does not apply to Playwright's
 * init scripts), then lets the browser's own constructor run.
 */
async function recordNotifications(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    const Native = window.Notification;
    const recorder: Recorder = { shown: [], instances: [] };
    Object.assign(window, { notificationRecorder: recorder });
    window.Notification = class extends Native {
      constructor(title: string, options?: NotificationOptions) {
        recorder.shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '' });
        super(title, options);
        recorder.instances.push(this);
      }
    };
  });
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as { notificationRecorder: Recorder }).notificationRecorder.shown);

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(log(page).getByText(text, { exact: true })).toBeVisible();
}

test('desktop notifications: opt-in, generic unless chosen, never for the conversation in view', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  const joined: Member[] = [];
  try {
    const [aliceKey, bobKey, carolKey] = server.generateKeys(3);
    const aliceContext = await browser.newContext({ baseURL: server.url });
    await aliceContext.grantPermissions(['notifications'], { origin: server.url });
    await recordNotifications(aliceContext);
    const alice = await joinThroughUi(aliceContext, aliceKey!, 'alice');
    joined.push(alice);
    const bob = await joinThroughUi(await browser.newContext({ baseURL: server.url }), bobKey!, 'bob');
    joined.push(bob);
    joined.push(await joinThroughUi(await browser.newContext({ baseURL: server.url }), carolKey!, 'carol'));

    // Off by default; turning it on (permission granted) offers the second option, also off.
    const enabled = alice.page.getByLabel('Desktop notifications');
    const details = alice.page.getByLabel('Show sender and message text');
    await expect(enabled).not.toBeChecked();
    await expect(details).toHaveCount(0);
    await enabled.check();
    await expect(details).not.toBeChecked();
    await alice.page
      .getByTestId('typing-indicator')
      .locator('..')
      .screenshot({ path: test.info().outputPath('settings-control.png') });
    await shot(alice.page, 'alice-turns-notifications-on');
    // On a phone the settings wrap rather than widen the page.
    await alice.page.setViewportSize({ width: 390, height: 844 });
    await shot(alice.page, 'alice-turns-notifications-on-phone');
    expect(await alice.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await alice.page.setViewportSize({ width: 1280, height: 720 });
    const { violations } = await new AxeBuilder({ page: alice.page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    // In a DM with Carol, the channel is not in view: "New message", nothing of Bob's text.
    await members(alice.page).getByRole('button', { name: /carol/ }).click();
    await send(bob.page, 'Secret plans for Friday');
    await expect.poll(async () => (await shown(alice.page)).length).toBe(1);
    const [generic] = await shown(alice.page);
    expect(generic).toEqual({ title: 'New message', body: '', tag: 'general' });

    // Sender and text, once Alice chooses them (remembered across a reload).
    await details.check();
    await alice.page.reload();
    await expect(alice.page.getByLabel('Show sender and message text')).toBeChecked();
    await members(alice.page).getByRole('button', { name: /carol/ }).click();
    await send(bob.page, 'Lunch at noon?');
    await expect.poll(async () => (await shown(alice.page)).length).toBe(1);
    expect((await shown(alice.page))[0]).toEqual({ title: 'bob', body: 'Lunch at noon?', tag: 'general' });

    // A click on it opens the channel.
    await alice.page.evaluate(() => {
      const [notification] = (window as unknown as { notificationRecorder: Recorder }).notificationRecorder.instances;
      notification?.dispatchEvent(new Event('click'));
    });
    await expect(alice.page.getByRole('heading', { name: 'General Channel' })).toBeVisible();

    // The channel in view with the tab visible: no notification.
    await send(bob.page, 'Seen as it arrives');
    await expect(log(alice.page).getByText('Seen as it arrives', { exact: true })).toBeVisible();
    await alice.page.waitForTimeout(1_000);
    expect(await shown(alice.page)).toHaveLength(1);

    // Bob's browser was never granted the permission: it refuses, and the control says so.
    await bob.page.getByLabel('Desktop notifications').click();
    await expect(bob.page.getByRole('alert').filter({ hasText: 'The browser refused notifications' })).toBeVisible();
    await expect(bob.page.getByLabel('Desktop notifications')).not.toBeChecked();
    await bob.page
      .getByTestId('typing-indicator')
      .locator('..')
      .screenshot({ path: test.info().outputPath('settings-refused.png') });
  } finally {
    for (const member of joined) await member.context.close();
    await server.stop();
  }
});
