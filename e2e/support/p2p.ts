/** The P2P network page as a member uses it, and what the server kept, for the P2P story. */
import { sessionResponseSchema } from '@enclave/protocol';
import { expect, type Page } from '@playwright/test';
import type { Member } from './members';

export const room = (page: Page) => page.getByRole('region', { name: 'Room' });
export const roomLog = (page: Page) => room(page).getByRole('log', { name: 'Room messages' });
export const nodeOf = (page: Page, host: string) => page.getByRole('listitem', { name: `Node of ${host}` });

/** Opens /p2p-network in the member's signed-in page. */
export async function openP2p(member: Member): Promise<void> {
  await member.page.goto('/p2p-network');
  await expect(member.page.getByRole('heading', { name: 'Host a node' })).toBeVisible();
}

export async function startHosting(page: Page, location: string, maxConnections = 50): Promise<void> {
  await page.getByLabel('Location label').fill(location);
  await page.getByLabel('Max connections').fill(String(maxConnections));
  await page.getByRole('button', { name: 'Start hosting' }).click();
  await expect(page.getByText('Hosting', { exact: true })).toBeVisible();
  await expect(room(page)).toHaveAttribute('data-room-status', 'open');
}

export async function connectTo(page: Page, host: string): Promise<void> {
  // A node started after the list loaded shows on Refresh.
  await page.getByRole('button', { name: 'Refresh' }).click();
  await expect(nodeOf(page, host).locator('[data-status]')).toHaveText('Online');
  await nodeOf(page, host)
    .getByRole('button', { name: `Connect to ${host}` })
    .click();
  await expect(room(page)).toHaveAttribute('data-room-status', 'open');
}

export async function say(page: Page, text: string): Promise<void> {
  await room(page).getByRole('textbox', { name: 'Room message' }).fill(text);
  await room(page).getByRole('button', { name: 'Send' }).click();
  await expect(roomLog(page).getByText(text, { exact: true })).toBeVisible();
}

/** The member's id, as the server knows it. */
export async function userIdOf(member: Member): Promise<string> {
  const res = await member.page.request.get('/api/auth/me');
  return sessionResponseSchema.parse(await res.json()).user.id;
}

export { dumpDatabase } from './database';
