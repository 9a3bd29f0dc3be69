/**
 * Community nodes as members live them: one hosts, others see the node online and join it over
 * WebRTC, the host relays their end-to-end encrypted messages, and when the host's tab closes the
 * node goes offline and the room closes for everyone. Nothing said in a room reaches the server:
 * not its wire, its log nor its database. A banned member's room ends with their session. A new
 * member gets there from the chat's top bar; an idle room raises no slow-link warning.
 */
import { expect, test } from './support/network';
import { connectTo, dumpDatabase, nodeOf, openP2p, room, roomLog, say, startHosting, userIdOf } from './support/p2p';
import { storyShots } from './support/shots';
import { WireTap } from './support/wire';

const shot = storyShots('p2p-network');

test('signed out, the page explains and asks to log in', async ({ page, server }) => {
  await page.goto(`${server.url}/p2p-network`);
  await expect(page.getByRole('heading', { name: 'Community nodes' })).toBeVisible();
  await expect(page.getByText('Please log in to access P2P networking features')).toBeVisible();
  await shot(page, 'signed-out');
});

test('a new member finds the P2P network from the chat’s top bar, on a laptop and on a phone', async ({ network }) => {
  const erin = await network.join('erin');
  const page = erin.page;
  for (const viewport of [
    { width: 1366, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    await expect(page).toHaveURL(/\/chat$/);
    // On a phone the entry is its icon alone, its name kept for screen readers.
    const entry = page.getByRole('banner').getByRole('link', { name: 'P2P Network' });
    await expect(entry).toBeInViewport({ ratio: 1 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await shot(page, `chat-top-bar-${viewport.width}`);
    await entry.click();
    await expect(page).toHaveURL(/\/p2p-network$/);
    await expect(page.getByRole('heading', { name: 'Host a node' })).toBeVisible();
    await page.getByRole('link', { name: 'Back to chat' }).click();
  }
});

test('a member hosts, two join, the host relays, and its tab closing ends the room', async ({ network, server }) => {
  const tap = new WireTap();
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const carol = await network.join('carol');
  for (const m of [alice, bob, carol]) tap.attach(m.context);
  for (const m of [alice, bob, carol]) await openP2p(m);
  // Unique markers: a room message found anywhere on the server's side is a leak.
  const marker = (who: string) => `${who} says ${crypto.randomUUID()}`;
  const said: string[] = [];

  await startHosting(alice.page, 'Berlin');
  await connectTo(bob.page, 'alice');
  await expect(room(alice.page).getByLabel('In the room')).toContainText('you, bob');
  await expect(room(bob.page).getByLabel('In the room')).toContainText('alice, you');

  said.push(marker('bob'));
  await say(bob.page, said.at(-1)!);
  await expect(roomLog(alice.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  said.push(marker('alice'));
  await say(alice.page, said.at(-1)!);
  await expect(roomLog(bob.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  await expect(roomLog(bob.page).getByText('Encrypted for alice, you')).toHaveCount(2);

  // A third member: the host relays between its joiners.
  await connectTo(carol.page, 'alice');
  await expect(room(bob.page).getByLabel('In the room')).toContainText('alice, you, carol');
  said.push(marker('bob'));
  await say(bob.page, said.at(-1)!);
  await expect(roomLog(carol.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  await expect(roomLog(alice.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  said.push(marker('carol'));
  await say(carol.page, said.at(-1)!);
  await expect(roomLog(bob.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  await expect(roomLog(alice.page).getByText(said.at(-1)!, { exact: true })).toBeVisible();
  // Carol was not in the room when the first two were said: she holds no key for them.
  await expect(roomLog(carol.page).getByText(said[0]!, { exact: true })).toHaveCount(0);

  await bob.page.getByRole('button', { name: 'Refresh' }).click();
  await expect(bob.page.locator('[data-stat="Total connections"]')).toHaveText('2');
  await expect(nodeOf(bob.page, 'alice').locator('[data-connections]')).toHaveText('2');
  for (const m of [alice, bob, carol]) await shot(m.page, `room-${m.username}`);

  // The host's tab closes: the node goes offline and the room closes for both joiners.
  const closedAt = Date.now();
  await alice.page.close();
  for (const m of [bob, carol]) {
    await expect(room(m.page)).toHaveAttribute('data-room-status', 'closed', { timeout: 5_000 });
    await expect(room(m.page).getByRole('alert')).toHaveText('Host left: the room is closed');
    await expect(nodeOf(m.page, 'alice').locator('[data-status]')).toHaveText('Offline', { timeout: 5_000 });
  }
  console.log(`room closed and node offline for both joiners ${Date.now() - closedAt} ms after the host's tab closed`);
  await shot(bob.page, 'host-left');
  await network.close();

  const places = { 'HTTP and WebSocket payloads': tap.payloads.join('\n'), 'server log': server.log, database: await dumpDatabase(server) };
  expect(tap.payloads.some((p) => p.includes('"p2p_signal"'))).toBe(true);
  expect(places.database).toContain('Berlin');
  for (const [where, text] of Object.entries(places)) {
    for (const text_ of said) expect(text.includes(text_), `${where} holds a room message`).toBe(false);
  }
});

test('a ban ends the banned member’s part: a joiner leaves the room, a host’s room closes', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  const carol = await network.join('carol');
  const dave = await network.join('dave');
  for (const m of [alice, bob, carol, dave]) await openP2p(m);
  await startHosting(alice.page, 'Lisbon', 2);
  await connectTo(bob.page, 'alice');
  // Dave's list shows a free slot; Carol takes it before he clicks: the server's refusal is shown.
  await dave.page.getByRole('button', { name: 'Refresh' }).click();
  await expect(nodeOf(dave.page, 'alice').locator('[data-connections]')).toHaveText('1');
  await connectTo(carol.page, 'alice');
  await expect(room(alice.page).getByLabel('In the room')).toContainText('you, bob, carol');
  await nodeOf(dave.page, 'alice').getByRole('button', { name: 'Connect to alice' }).click();
  await expect(dave.page.getByRole('alert')).toHaveText('Could not connect: This node is full: it accepts at most 2 connections');
  await expect(nodeOf(dave.page, 'alice').getByRole('button', { name: 'Connect to alice' })).toBeDisabled();
  await shot(dave.page, 'node-full');

  // The joiner is banned: their session ends, and the host drops them from the roster.
  const ban = async (userId: string) =>
    expect((await network.creatorApi.post('/api/super-admin/ban-user', { data: { userId } })).status()).toBe(200);
  await ban(await userIdOf(bob));
  await expect(bob.page).toHaveURL(/\/$/);
  await expect(room(alice.page).getByLabel('In the room')).toHaveText('In the room: you, carol');
  await expect(room(carol.page).getByLabel('In the room')).toHaveText('In the room: alice, you');

  // The host is banned: their node is removed and the joiner's room closes.
  await ban(await userIdOf(alice));
  await expect(room(carol.page)).toHaveAttribute('data-room-status', 'closed');
  await expect(nodeOf(carol.page, 'alice')).toHaveCount(0);
  await shot(carol.page, 'host-banned');
});

test('an idle room shows its throughput without a slow-link warning', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  for (const m of [alice, bob]) await openP2p(m);
  await startHosting(alice.page, 'Ghent');
  await connectTo(bob.page, 'alice');
  await say(bob.page, 'one message, then quiet');
  await expect(roomLog(alice.page).getByText('one message, then quiet', { exact: true })).toBeVisible();
  // Nothing more is said: a check later the link carries keep-alives only, far under 100 kbit/s.
  const throughput = bob.page.getByRole('group', { name: 'Throughput' });
  await expect(throughput).toContainText('idle: only keep-alives on the room link', { timeout: 20_000 });
  expect(Number(await throughput.locator('[data-value]').getAttribute('data-value'))).toBeLessThan(100);
  await expect(bob.page.locator('[data-hint="throughput"]')).toHaveCount(0);
  await shot(bob.page, 'idle-room');
});

test('leaving frees the slot; stopping hosting closes the room and removes the node', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  for (const m of [alice, bob]) await openP2p(m);
  await startHosting(alice.page, 'Porto');
  await connectTo(bob.page, 'alice');
  await expect(nodeOf(alice.page, 'alice').locator('[data-connections]')).toHaveText('1');
  await room(bob.page).getByRole('button', { name: 'Leave room' }).click();
  await expect(room(bob.page)).toHaveCount(0);
  await expect(room(alice.page).getByLabel('In the room')).toHaveText('In the room: you');
  await expect(nodeOf(alice.page, 'alice').locator('[data-connections]')).toHaveText('0');
  await connectTo(bob.page, 'alice');
  await alice.page.getByRole('button', { name: 'Stop hosting' }).click();
  await expect(alice.page.getByRole('button', { name: 'Start hosting' })).toBeVisible();
  await expect(room(alice.page)).toHaveCount(0);
  await expect(room(bob.page)).toHaveAttribute('data-room-status', 'closed');
  await expect(nodeOf(bob.page, 'alice')).toHaveCount(0);
  // The joiner may connect elsewhere; the closed room goes on Dismiss.
  await room(bob.page).getByRole('button', { name: 'Dismiss' }).click();
  await expect(room(bob.page)).toHaveCount(0);
});

test('a host cut off from the server keeps its room: messages go browser to browser', async ({ network }) => {
  const alice = await network.join('alice');
  const bob = await network.join('bob');
  for (const m of [alice, bob]) await openP2p(m);
  await startHosting(alice.page, 'Faro');
  await connectTo(bob.page, 'alice');
  // Alice's browser goes offline: her socket closes (her node shows offline), her peer connection stays.
  await alice.context.setOffline(true);
  await expect(nodeOf(bob.page, 'alice').locator('[data-status]')).toHaveText('Offline');
  await say(bob.page, 'still here, without the server');
  await expect(roomLog(alice.page).getByText('still here, without the server', { exact: true })).toBeVisible();
  await expect(room(bob.page)).toHaveAttribute('data-room-status', 'open');
  await alice.context.setOffline(false);
  await expect(nodeOf(bob.page, 'alice').locator('[data-status]')).toHaveText('Online');
});
