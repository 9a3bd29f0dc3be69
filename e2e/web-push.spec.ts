/**
 * Web Push, the member's opt-in: the switch sits with the chat's notification settings, off by
 * default, and says honestly why it cannot be turned on here (headless Chromium has no push
 * service, and may refuse the permission), leaving nothing subscribed.
 */
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { joinThroughUi } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';
import { expectToast } from './support/toasts';

const shot = storyShots('web-push');

test('the push switch is offered, off, and explains a refusal', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  try {
    const [key] = server.generateKeys(1);
    const context = await browser.newContext({ baseURL: server.url });
    await context.grantPermissions(['notifications'], { origin: server.url });
    const alice = await joinThroughUi(context, key!, 'alice');
    const push = alice.page.getByRole('switch', { name: 'Push notifications when Enclave is closed' });
    await expect(push).toBeVisible();
    await expect(push).not.toBeChecked();
    await expect(push).toBeEnabled();
    await expectAccessible(alice.page);
    await shot(alice.page, 'push-switch-off');

    await push.click();
    // The reason, whichever this browser gives (web/src/push/push.ts, pushTexts).
    const refusal = /could not reach its push service|refused notifications for this site|has no service worker yet/;
    await expectToast(alice.page, 'Push notifications are not available', refusal);
    await expect(push).not.toBeChecked();
    await expect(push).toBeEnabled();
    await shot(alice.page, 'push-refused', { toasts: true });
    // The browser holds no subscription after the refusal.
    expect(
      await alice.page.evaluate(async () => {
        const registration = await navigator.serviceWorker.getRegistration();
        return (await registration?.pushManager.getSubscription()) ?? null;
      }),
    ).toBeNull();

    await alice.page.setViewportSize({ width: 390, height: 844 });
    await expect(push).toBeVisible();
    await expectNoOverflow(alice.page);
    await shot(alice.page, 'push-switch-phone');
  } finally {
    await server.stop();
  }
});
