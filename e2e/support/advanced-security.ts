/** The Advanced Security Command Center (/advanced-security) as the creator sees it, and callers from other addresses. */
import { expect, type APIRequestContext, type Page, type PlaywrightWorkerArgs } from '@playwright/test';
import { openConsole } from './creator-console';
import type { EnclaveServer } from './server';

/** docs/spec.md §9: the live monitor polls every 2000 ms. */
export const LIVE_POLL_MS = 2000;
/** An event is on screen within one poll, plus the time of that poll's request and render. */
export const WITHIN_A_POLL = LIVE_POLL_MS + 1000;

/**
 * A caller from another address. The spec's server runs with TRUST_PROXY=1, so it takes the
 * right-most X-Forwarded-For entry as the client address, as behind one reverse proxy
 * (docs/security.md §9); every request still goes to 127.0.0.1. The addresses are from the
 * documentation ranges (RFC 5737): nothing is ever sent to them.
 */
export function fromAddress(playwright: PlaywrightWorkerArgs['playwright'], server: EnclaveServer, ip: string): Promise<APIRequestContext> {
  return playwright.request.newContext({ baseURL: server.url, extraHTTPHeaders: { 'X-Forwarded-For': ip } });
}

/** From /super-admin: the master key, then the console's link; the key is not asked again. */
export async function openCommandCenter(page: Page): Promise<void> {
  await page.goto('/super-admin');
  await openConsole(page);
  await page.getByRole('link', { name: 'Advanced Security' }).click();
  await expect(page).toHaveURL(/\/advanced-security$/);
  await expect(page.getByRole('heading', { name: 'Advanced Security Command Center', level: 1 })).toBeVisible();
  await expect(page.getByLabel('Master Key', { exact: true })).toHaveCount(0);
}

export const tile = (page: Page, label: string) => page.locator(`[data-stat="${label}"]`);
export const region = (page: Page, name: string) => page.getByRole('region', { name, exact: true });

const exactly = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/** The live event cards of a type, from one client address when given. */
export function eventCards(page: Page, type: string, clientIp?: string) {
  const cards = page.locator(`li[data-event-type="${type}"]`);
  return clientIp ? cards.filter({ has: page.locator('[data-ip="client"]', { hasText: exactly(clientIp) }) }) : cards;
}

/** The requests the page sends to /api/security/*, as they go. */
export function securityRequests(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/security/')) seen.push(`${Date.now()} ${req.method()} ${req.url()}`);
  });
  return seen;
}
