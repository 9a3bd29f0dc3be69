/**
 * Every screen, signed out and signed in (a private group and its dialogs too), on a laptop
 * (1366×768) and a phone (390×844): nothing scrolls sideways (at 360 px either), not even after a
 * 500-character message with no spaces; Send stays in view and uncovered, toasts included; axe
 * finds no serious or critical violation. One network serves every screen. The screenshots are
 * for a look by eye.
 */
import AxeBuilder from '@axe-core/playwright';
import { limits } from '@enclave/protocol';
import type { Page } from '@playwright/test';
import { openConsole } from './support/creator-console';
import { promoteToAdmin } from './support/members';
import { test, expect } from './support/network';
import { storyShots } from './support/shots';
import { toastWith } from './support/toasts';

const shot = storyShots('layout-and-a11y');

const LAPTOP = { name: 'laptop', width: 1366, height: 768 };
const PHONE = { name: 'phone', width: 390, height: 844 };
const NARROW = { name: 'narrow', width: 360, height: 740 };

const UNBROKEN = 'W'.repeat(limits.messageMaxChars);
const LONG_URL = `https://example.org/${'path-segment/'.repeat(20)}?q=${'x'.repeat(80)}`;

const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const sendButton = (page: Page) => page.getByRole('button', { name: 'Send', exact: true });

/** Nothing sticks out to the right; a failure names the outermost elements that do. */
async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  const { scroll, inner, culprits } = await page.evaluate(() => {
    const inner = window.innerWidth;
    // Inside a scroller (a wide table in its frame) sticking out is clipped, not the page's width;
    // an absolutely placed box (an sr-only label) escapes scrollers outside its containing block.
    const clipped = (el: Element) => {
      let escapes = ['absolute', 'fixed'].includes(getComputedStyle(el).position);
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const style = getComputedStyle(a);
        if (escapes && style.position !== 'static') escapes = false;
        if (!escapes && style.overflowX !== 'visible') return true;
      }
      return false;
    };
    const wide = Array.from(document.body.querySelectorAll('*')).filter(
      (el) => el.getBoundingClientRect().right > inner + 1 && !clipped(el),
    );
    const culprits = wide
      .filter((el) => !wide.includes(el.parentElement as Element))
      .slice(0, 5)
      .map((el) => `<${el.localName} class="${el.getAttribute('class') ?? ''}"> ${Math.round(el.getBoundingClientRect().width)} px`);
    return { scroll: document.documentElement.scrollWidth, inner, culprits };
  });
  expect(scroll, `${where}: page width ${scroll} px in a ${inner} px window; sticking out: ${culprits.join('; ')}`).toBeLessThanOrEqual(
    inner,
  );
}

/** Send is inside the window and the topmost element at its centre is Send itself (no toast over it). */
async function expectSendUncovered(page: Page, where: string): Promise<void> {
  const send = sendButton(page);
  await expect(send).toBeInViewport({ ratio: 1 });
  const onTop = await send.evaluate((button) => {
    const box = button.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return hit !== null && button.contains(hit);
  });
  expect(onTop, `${where}: Send is covered`).toBe(true);
}

/** The open toast overlaps no button, link or field (on a laptop; a phone has room only at the top, over its header). */
async function expectToastCoversNoControl(page: Page, where: string): Promise<void> {
  const covered = await page.evaluate(() => {
    const toast = document.querySelector('li[data-state="open"]');
    if (!toast) return ['no open toast'];
    const t = toast.getBoundingClientRect();
    const controls = Array.from(
      document.querySelectorAll('button, a[href], input, textarea, select, summary, [role="button"], [role="tab"]'),
    );
    return controls
      .filter((el) => !toast.contains(el) && el.getClientRects().length > 0)
      .filter((el) => {
        const r = el.getBoundingClientRect();
        return r.left < t.right && r.right > t.left && r.top < t.bottom && r.bottom > t.top;
      })
      .map((el) => `<${el.localName}> ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 40) ?? ''}`);
  });
  expect(covered, `${where}: controls under the toast`).toEqual([]);
}

async function expectAccessible(page: Page, where: string): Promise<void> {
  // Colours still fading (a toggle just pressed) would be measured half-way.
  await page.waitForFunction(() => document.getAnimations().every((a) => !(a instanceof CSSTransition) || a.playState !== 'running'));
  const { violations } = await new AxeBuilder({ page }).analyze();
  const grave = violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`);
  expect(grave, `${where}: axe`).toEqual([]);
}

type Visit = { screen: string; chat?: boolean };

/** The screen as it is now, at each size: no sideways scroll, axe, a shot (and Send, on the chat). */
async function checkScreen(page: Page, { screen, chat = false }: Visit): Promise<void> {
  for (const size of [LAPTOP, PHONE, NARROW]) {
    const where = `${screen} at ${size.width} px`;
    await page.setViewportSize(size);
    await expectNoSidewaysScroll(page, where);
    if (chat) await expectSendUncovered(page, where);
    if (size === NARROW) continue;
    await expectAccessible(page, where);
    await shot(page, `${screen}-${size.name}`);
  }
}

test('every screen fits a phone and passes axe', async ({ network }) => {
  // Three roles' screens at three widths with axe: minutes on a loaded machine.
  test.setTimeout(480_000);

  await test.step('signed out', async () => {
    const context = await network.newContext();
    const page = await context.newPage();
    for (const [screen, path, heading] of [
      ['login', '/', 'Enclave'],
      ['login-path', '/login', 'Enclave'],
      ['validate', '/validate', /Validate/],
      ['admin-sign-in', '/admin', 'Sign-in required'],
      ['super-admin-sign-in', '/super-admin', 'Creator Access'],
      ['advanced-security-sign-in', '/advanced-security', 'Creator Access'],
      ['p2p-network-signed-out', '/p2p-network', 'P2P Network'],
      ['not-found', '/no-such-page', '404 Page Not Found'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await checkScreen(page, { screen });
    }
    await expect(page.getByRole('link', { name: 'Back to Enclave' })).toHaveAttribute('href', '/');

    await page.goto('/');
    await page.getByRole('tab', { name: 'Create Vault' }).click();
    await expect(page.getByLabel('Access Key', { exact: true })).toBeVisible();
    await checkScreen(page, { screen: 'login-create-vault' });

    // /admin has the other screens' header, a way back, and a master-key field that can be shown.
    await page.goto('/admin');
    await expect(page.getByRole('banner').getByRole('link', { name: 'Back to Enclave' })).toHaveAttribute('href', '/');
    const masterKey = page.getByLabel('Master Key', { exact: true });
    await expect(masterKey).toHaveAttribute('type', 'password');
    await page.getByRole('button', { name: 'Show master key' }).click();
    await expect(masterKey).toHaveAttribute('type', 'text');
    await page.getByRole('button', { name: 'Hide master key' }).click();
    await expect(masterKey).toHaveAttribute('type', 'password');
    await context.close();
  });

  const alice = await network.join('alice');
  const bob = await network.join('bob');
  await promoteToAdmin(network.creatorApi, network.server.url, alice);

  await test.step('a 500-character word and a long address wrap inside their bubbles', async () => {
    for (const text of [UNBROKEN, LONG_URL]) {
      await bob.page.getByRole('textbox', { name: 'Message' }).fill(text);
      await sendButton(bob.page).click();
      await expect(log(alice.page).getByText(text, { exact: true })).toBeVisible();
    }
    const bubble = log(alice.page).getByText(UNBROKEN, { exact: true });
    const [bubbleWidth, logWidth] = await Promise.all([
      bubble.evaluate((el) => el.getBoundingClientRect().width),
      log(alice.page).evaluate((el) => el.clientWidth),
    ]);
    expect(bubbleWidth).toBeLessThanOrEqual(logWidth);
  });

  await test.step('the chat', async () => {
    const page = alice.page;
    await page.reload();
    await expect(log(page).getByText(UNBROKEN, { exact: true })).toBeVisible();
    await checkScreen(page, { screen: 'chat', chat: true });

    // A toast after sending stays off the composer, and on a laptop off every control.
    for (const size of [LAPTOP, PHONE]) {
      await page.setViewportSize(size);
      await page.getByRole('textbox', { name: 'Message' }).fill(`hello at ${size.width} px`);
      await sendButton(page).click();
      await expect(toastWith(page, 'Message Sent')).toBeVisible();
      await expectSendUncovered(page, `chat at ${size.width} px with a toast`);
      if (size === LAPTOP) await expectToastCoversNoControl(page, 'chat with a toast');
      await expect(page.getByRole('textbox', { name: 'Message' })).toBeInViewport({ ratio: 1 });
      await shot(page, `chat-toast-${size.name}`, { toasts: true });
    }

    // On a phone the member list is a drawer: focus moves in, a choice closes it and opens the DM.
    await page.setViewportSize(PHONE);
    await expect(page.getByRole('complementary', { name: 'Members' })).toBeHidden();
    await page.getByRole('button', { name: 'Members' }).click();
    const drawer = page.getByRole('dialog', { name: 'Conversations' });
    await expect(drawer).toBeVisible();
    await expect(drawer.locator(':focus')).toHaveCount(1);
    await expectAccessible(page, 'member drawer');
    await shot(page, 'chat-drawer-phone');
    await drawer.getByRole('button', { name: /^bob/ }).click();
    await expect(drawer).toBeHidden();
    await expect(page.getByRole('heading', { name: 'Direct message · bob' })).toBeVisible();
    await expectSendUncovered(page, 'DM on a phone');
    await shot(page, 'chat-dm-phone');

    // By keyboard alone: the drawer opens and closes with focus returned, focus is visible, Enter sends.
    const trigger = page.getByRole('button', { name: 'Members' });
    await trigger.focus();
    await page.keyboard.press('Enter');
    await expect(drawer).toBeVisible();
    // Focus moves into the open drawer (and only then does it listen for Escape): a busy machine can be a frame late.
    await expect.poll(() => drawer.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(trigger).toBeFocused();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement && getComputedStyle(document.activeElement).outlineStyle)).not.toBe('none');
    const message = page.getByRole('textbox', { name: 'Message' });
    await message.focus();
    await page.keyboard.type('sent by keyboard');
    await page.keyboard.press('Enter');
    await expect(log(page).getByText('sent by keyboard', { exact: true })).toBeVisible();

    // A phone turned into a wide screen with the drawer open: the drawer closes, the page stays usable.
    await trigger.click();
    await expect(drawer).toBeVisible();
    await page.setViewportSize(LAPTOP);
    await expect(drawer).toBeHidden();

    // The ban dialog (alice is an admin) takes focus and passes axe; Escape closes it.
    await page.getByRole('button', { name: 'Ban bob' }).click();
    const banDialog = page.getByRole('dialog', { name: 'Ban bob?' });
    await expect(banDialog.getByLabel('Reason (optional)')).toBeFocused();
    await expectAccessible(page, 'ban dialog');
    await shot(page, 'chat-ban-dialog-laptop');
    await page.keyboard.press('Escape');
    await expect(banDialog).toBeHidden();
  });

  await test.step('a private group', async () => {
    const page = alice.page;
    await page.setViewportSize(LAPTOP);
    await page.getByRole('region', { name: 'Groups' }).getByRole('button', { name: 'New group' }).click();
    const dialog = page.getByRole('dialog', { name: 'New group' });
    await expect(dialog.getByLabel('Group name')).toBeVisible();
    await checkScreen(page, { screen: 'chat-new-group-dialog' });
    await dialog.getByLabel('Group name').fill('Design');
    await dialog.getByRole('checkbox', { name: 'bob' }).check();
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await expect(page.getByRole('heading', { level: 2, name: 'Design' })).toBeVisible();
    await checkScreen(page, { screen: 'chat-group', chat: true });
    await page.getByRole('button', { name: 'Group members' }).click();
    const members = page.getByRole('dialog', { name: 'Design' });
    await expect(members.getByRole('button', { name: 'Remove bob' })).toBeVisible();
    await checkScreen(page, { screen: 'chat-group-members-dialog' });
    await members.getByRole('button', { name: 'Add members' }).click();
    await expect(members.getByText('Nobody else can be added.')).toBeVisible();
    await checkScreen(page, { screen: 'chat-group-add-members' });
    await page.keyboard.press('Escape');
    await expect(members).toBeHidden();
  });

  await test.step('signed-in screens', async () => {
    const page = alice.page;
    for (const [screen, path, heading] of [
      ['security', '/security', 'Security'],
      ['admin-panel', '/admin', 'Admin Panel · Key Management'],
      ['p2p-network', '/p2p-network', 'P2P Network'],
      ['not-found-signed-in', '/no-such-page', '404 Page Not Found'],
    ] as const) {
      await page.goto(path);
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
      await checkScreen(page, { screen });
    }
    await expect(page.getByRole('link', { name: 'Back to chat' })).toHaveAttribute('href', '/chat');

    // A toast of another screen does not follow the member onto the chat.
    await page.goto('/admin');
    await page.getByRole('button', { name: 'Generate Keys' }).click();
    await expect(toastWith(page, 'Keys Generated Successfully')).toBeVisible();
    await page.getByRole('link', { name: 'Back to chat' }).click();
    await expect(page).toHaveURL(/\/chat$/);
    await expect(toastWith(page, 'Keys Generated Successfully')).toHaveCount(0);
  });

  await test.step("the creator's screens", async () => {
    const page = await network.newCreatorPage();
    await page.goto('/super-admin');
    await openConsole(page);
    await expectToastCoversNoControl(page, 'console with its welcome toast');
    await checkScreen(page, { screen: 'super-admin' });
    for (const [slug, label] of [
      ['heatmap', 'Security Heatmap'],
      ['risk', 'Risk Visualizer'],
      ['compliance', 'Compliance Dashboard'],
      ['revocation', 'Key Revocation'],
      ['generate', 'Generate Access Keys'],
    ] as const) {
      await page.setViewportSize(LAPTOP);
      await page.getByRole('toolbar', { name: 'Panels' }).getByRole('button', { name: label }).click();
      await expect(page.locator('[id^="panel-"]')).toBeVisible();
      await checkScreen(page, { screen: `super-admin-${slug}` });
    }
    await page.getByRole('button', { name: 'Emergency Shutdown', exact: true }).click();
    const shutdown = page.getByRole('dialog');
    await expect(shutdown.getByRole('button', { name: 'Cancel' })).toBeFocused();
    await checkScreen(page, { screen: 'super-admin-shutdown-dialog' });
    await shutdown.getByRole('button', { name: 'Cancel' }).click();
    await expect(shutdown).toBeHidden();
    await page.getByRole('link', { name: 'Advanced Security' }).click();
    await expect(page.getByRole('heading', { name: 'Advanced Security Command Center', level: 1 })).toBeVisible();
    await checkScreen(page, { screen: 'advanced-security' });
  });
});
