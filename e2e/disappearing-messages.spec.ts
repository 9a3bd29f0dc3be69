/**
 * Disappearing messages and delete for everyone, as two members live them. Alice sets a one-hour
 * timer in her DM with Bob (both see it announced) and sends a marked message; with both browsers'
 * clocks an hour ahead it is gone from both screens, and after the server's sweep from the
 * database: neither its text nor its ciphertext rests in either browser's storage or in any row.
 * Bob deletes a message of his for everyone: both screens drop it for a note, which stays after a
 * reload, and the database keeps nothing of it.
 *
 * The server's clock cannot be moved from here: its testing aid DISAPPEARING_TIMER_CAP_MS makes
 * the hour last EXPIRY_CAP_MS on the server, long enough that the browsers' removal at the hour
 * (by their own clocks) comes well before the server's word.
 */
import type { Page } from '@playwright/test';
import { messageEnvelopeSchema, sendMessageRequestSchema } from '@enclave/protocol';
import { browserDataText } from './support/browser-data';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { joinThroughUi, type Member } from './support/members';
import { expect, test, type Network } from './support/network';
import { dumpDatabase } from './support/p2p';
import { storyShots } from './support/shots';
import { WireTap } from './support/wire';

const EXPIRY_CAP_MS = 45_000;
test.use({ serverEnv: { DISAPPEARING_TIMER_CAP_MS: String(EXPIRY_CAP_MS) } });

const shot = storyShots('disappearing-messages');
const members = (page: Page) => page.getByRole('complementary', { name: 'Members' });
const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(log(page).getByText(text, { exact: true })).toBeVisible();
}

/** The ciphertext parts of the message sent with this marker's request, as the tap saw it leave. */
function ciphertextOf(tap: WireTap, count: number): string[] {
  const sends = tap.payloads.filter((p) => p.startsWith('POST ') && p.includes('/api/messages/send'));
  const body = sendMessageRequestSchema.parse(JSON.parse(sends[count - 1]!.slice(sends[count - 1]!.indexOf('{'))));
  const { ct, iv, sig } = messageEnvelopeSchema.parse(JSON.parse(body.encryptedContent));
  return [ct, iv, sig];
}

/** Two members, each in a browser whose clock the test can move, both in their DM. */
async function twoInDm(network: Network, tap: WireTap): Promise<[Member, Member]> {
  const [aliceKey, bobKey] = await network.mintKeys(2);
  const join = async (key: string, name: string) => {
    const context = await network.newContext({ viewport: { width: 1366, height: 900 } });
    tap.attach(context);
    // Installed before the app loads, so that its timers and Date are the fake ones; time runs on by itself.
    await context.clock.install();
    return joinThroughUi(context, key, name);
  };
  const alice = await join(aliceKey!, 'alice');
  const bob = await join(bobKey!, 'bob');
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await members(bob.page).getByRole('button', { name: /alice/ }).click();
  return [alice, bob];
}

test('a disappearing message is gone from both screens, both browsers and the database after its timer', async ({ network }) => {
  test.setTimeout(180_000);
  const tap = new WireTap();
  const [alice, bob] = await twoInDm(network, tap);

  // Alice sets one hour; both see the announcement in the timeline and the timer in the header.
  await alice.page.getByLabel('Disappearing messages').selectOption({ label: '1 hour' });
  await expect(log(alice.page).getByText('You set disappearing messages to 1 hour')).toBeVisible();
  await expect(log(bob.page).getByText('alice set disappearing messages to 1 hour')).toBeVisible();
  await expect(bob.page.getByLabel('Disappearing messages')).toHaveValue('3600');

  const marker = `vanishing-${crypto.randomUUID()}`;
  await send(alice.page, marker);
  await expect(log(bob.page).getByText(marker, { exact: true })).toBeVisible();
  const ciphertext = ciphertextOf(tap, 1);
  await shot(alice.page, 'alice-sent-a-disappearing-message');

  // An hour and a minute later by both browsers' clocks: gone from both screens at once, before
  // the server (EXPIRY_CAP_MS) could have said anything.
  await Promise.all([alice, bob].map((m) => m.page.clock.fastForward('01:01:00')));
  for (const m of [alice, bob]) await expect(log(m.page).getByText(marker, { exact: true })).toHaveCount(0, { timeout: 5_000 });
  expect(tap.payloads.some((p) => p.includes('"messages_deleted"'))).toBe(false);
  // The announcement stays: it is what explains the empty conversation.
  await expect(log(bob.page).getByText('alice set disappearing messages to 1 hour')).toBeVisible();
  for (const [m, name] of [
    [alice, 'alice'],
    [bob, 'bob'],
  ] as const) {
    await shot(m.page, `${name}-after-expiry`);
    await expectAccessible(m.page);
    await m.page.setViewportSize({ width: 390, height: 844 });
    await expectNoOverflow(m.page);
    await shot(m.page, `${name}-after-expiry-phone`);
    await m.page.setViewportSize({ width: 1366, height: 900 });
  }

  // The server erases it at its own expiry and tells both members.
  await expect
    .poll(() => tap.payloads.filter((p) => p.startsWith('ws<') && p.includes('"messages_deleted"') && p.includes('"expired"')).length, {
      timeout: EXPIRY_CAP_MS + 30_000,
    })
    .toBeGreaterThanOrEqual(2);

  // Nothing of it in either browser's storage, then nothing in the database.
  for (const m of [alice, bob]) {
    const stored = await browserDataText(m.page);
    for (const secret of [marker, ...ciphertext])
      expect(stored.includes(secret), `browser storage holds ${secret.slice(0, 16)}…`).toBe(false);
  }
  await network.close();
  const database = await dumpDatabase(network.server);
  expect(database).toContain('timer_changes');
  for (const secret of [marker, ...ciphertext]) expect(database.includes(secret), `database holds ${secret.slice(0, 16)}…`).toBe(false);
});

test('a sender deletes a message for everyone; a note stays in its place', async ({ network }) => {
  const tap = new WireTap();
  const [alice, bob] = await twoInDm(network, tap);
  const marker = `regretted-${crypto.randomUUID()}`;
  await send(bob.page, marker);
  await expect(log(alice.page).getByText(marker, { exact: true })).toBeVisible();
  const ciphertext = ciphertextOf(tap, 1);
  // Only the sender is offered the deletion.
  const aliceRow = log(alice.page).getByRole('listitem').filter({ hasText: marker });
  await expect(aliceRow.getByRole('button', { name: 'Delete for everyone' })).toHaveCount(0);

  await log(bob.page).getByRole('listitem').filter({ hasText: marker }).getByRole('button', { name: 'Delete for everyone' }).click();
  const dialog = bob.page.getByRole('dialog', { name: 'Delete for everyone?' });
  await shot(bob.page, 'bob-confirms-deletion');
  await expectAccessible(bob.page);
  await dialog.getByRole('button', { name: 'Delete for everyone' }).click();

  await expect(log(bob.page).getByText('You deleted this message')).toBeVisible();
  await expect(log(alice.page).getByText('This message was deleted')).toBeVisible();
  for (const m of [alice, bob]) await expect(log(m.page).getByText(marker, { exact: true })).toHaveCount(0);
  await shot(alice.page, 'alice-sees-the-note');
  await expectAccessible(alice.page);

  // After a reload the history holds the note, not the message.
  await alice.page.reload();
  await members(alice.page).getByRole('button', { name: /bob/ }).click();
  await expect(log(alice.page).getByText('This message was deleted')).toBeVisible();
  await expect(log(alice.page).getByText(marker, { exact: true })).toHaveCount(0);
  await alice.page.setViewportSize({ width: 390, height: 844 });
  await expectNoOverflow(alice.page);
  await shot(alice.page, 'alice-after-reload-phone');

  await network.close();
  const database = await dumpDatabase(network.server);
  for (const secret of [marker, ...ciphertext]) expect(database.includes(secret), `database holds ${secret.slice(0, 16)}…`).toBe(false);
});
