/**
 * Read receipts between two members, from both screens: opt-in and reciprocal. With only Alice
 * sending them, neither sees "Read"; once Bob opts in too, Alice sees "Read" under her message
 * once Bob has it open, live; when Bob turns them off, "Read" is gone for both, after a reload too.
 */
import type { Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { joinThroughUi, type Member } from './support/members';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';

const shot = storyShots('read-receipts');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });
const readMarks = (page: Page) => log(page).getByTestId('read-receipt');
const readSwitch = (page: Page) => page.getByRole('switch', { name: 'Send read receipts' });

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(log(page).getByText(text, { exact: true })).toBeVisible();
}

/** The member's read position reaching the server (the chat posts it once reading settles). */
const positionPosted = (page: Page) =>
  page.waitForResponse((r) => r.url().endsWith('/api/conversations/read') && r.request().method() === 'POST' && r.ok());

/** Turns the switch to `on`, waiting for the server to take it. */
async function setReadReceipts(page: Page, on: boolean): Promise<void> {
  const saved = page.waitForResponse((r) => r.url().endsWith('/api/users/me/read-receipts') && r.ok());
  await readSwitch(page).setChecked(on);
  await saved;
  await expect(readSwitch(page)).toBeChecked({ checked: on });
}

async function openDm(page: Page, peer: string): Promise<void> {
  await members(page)
    .getByRole('button', { name: new RegExp(peer) })
    .click();
  await expect(page.getByRole('textbox', { name: 'Message' })).toHaveAttribute('placeholder', `Encrypted message to ${peer}…`);
}

test('read receipts are opt-in and reciprocal', async ({ browser }) => {
  const server = new EnclaveServer();
  await server.start();
  let alice: Member | undefined;
  let bob: Member | undefined;
  try {
    const [aliceKey, bobKey] = server.generateKeys(2);
    alice = await joinThroughUi(await browser.newContext({ baseURL: server.url }), aliceKey!, 'alice');
    bob = await joinThroughUi(await browser.newContext({ baseURL: server.url }), bobKey!, 'bob');

    // Off by default, said so beside the switch.
    await expect(readSwitch(alice.page)).not.toBeChecked();
    await expect(readSwitch(alice.page)).toHaveAccessibleDescription("If you turn this off, you won't see others' read receipts either.");
    await expectAccessible(alice.page);

    // Only Alice sends read receipts. They talk in their DM, both with it open.
    await setReadReceipts(alice.page, true);
    await openDm(alice.page, 'bob');
    await openDm(bob.page, 'alice');
    await send(alice.page, 'Did you get the files?');
    await expect(log(bob.page).getByText('Did you get the files?', { exact: true })).toBeVisible();
    const alicePosted = positionPosted(alice.page);
    await send(bob.page, 'Yes, all of them');
    await expect(log(alice.page).getByText('Yes, all of them', { exact: true })).toBeVisible();
    // Alice's position is on the server, but Bob sends none, so neither sees "Read".
    await alicePosted;
    await send(alice.page, 'Great, thanks');
    await expect(log(bob.page).getByText('Great, thanks', { exact: true })).toBeVisible();
    await expect(readMarks(alice.page)).toHaveCount(0);
    await expect(readMarks(bob.page)).toHaveCount(0);
    await shot(alice.page, 'only-alice-opted-in');

    // Bob opts in, with the DM open: Alice sees "Read" under her last message, live, with the time in its tooltip.
    await setReadReceipts(bob.page, true);
    const aliceMark = readMarks(alice.page);
    await expect(aliceMark).toHaveCount(1);
    await expect(log(alice.page).locator('li[data-message-id]:has-text("Great, thanks") + [data-testid="read-receipt"]')).toBeVisible();
    await expect(aliceMark.locator('[title]')).toHaveAttribute('title', /^Read \S/);
    // Bob sees Alice's: under his own message she read.
    await expect(log(bob.page).locator('li[data-message-id]:has-text("Yes, all of them") + [data-testid="read-receipt"]')).toBeVisible();
    await shot(alice.page, 'alice-sees-read');
    await expectAccessible(alice.page);
    await expectAccessible(bob.page);

    // Her next message is marked once Bob has seen it.
    const bobPosted = positionPosted(bob.page);
    await send(alice.page, 'See you tomorrow');
    await bobPosted;
    await expect(log(alice.page).locator('li[data-message-id]:has-text("See you tomorrow") + [data-testid="read-receipt"]')).toBeVisible();
    await expect(readMarks(alice.page)).toHaveCount(1);

    // On a phone, the settings and the mark fit.
    await alice.page.setViewportSize({ width: 390, height: 844 });
    await expect(readMarks(alice.page)).toBeVisible();
    await expectNoOverflow(alice.page);
    await shot(alice.page, 'alice-sees-read-phone');
    await alice.page.setViewportSize({ width: 1366, height: 768 });

    // Bob turns it off: he sees no one's at once, and after a reload neither does Alice.
    await setReadReceipts(bob.page, false);
    await expect(readMarks(bob.page)).toHaveCount(0);
    await alice.page.reload();
    await openDm(alice.page, 'bob');
    await expect(log(alice.page).getByText('See you tomorrow', { exact: true })).toBeVisible();
    await expect(readSwitch(alice.page)).toBeChecked();
    await expect(readMarks(alice.page)).toHaveCount(0);
    await bob.page.reload();
    await openDm(bob.page, 'alice');
    await expect(log(bob.page).getByText('See you tomorrow', { exact: true })).toBeVisible();
    await expect(readSwitch(bob.page)).not.toBeChecked();
    await expect(readMarks(bob.page)).toHaveCount(0);
    await shot(bob.page, 'bob-opted-out');
  } finally {
    await alice?.context.close();
    await bob?.context.close();
    await server.stop();
  }
});
