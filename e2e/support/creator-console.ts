/** The creator's console (/super-admin) as the creator sees it, and what its API answers beside it. */
import { overviewSchema, type Overview } from '@enclave/protocol';
import { expect, type APIRequestContext, type Locator, type Page } from '@playwright/test';
import type { Member } from './members';
import { E2E_MASTER_KEY } from './server';
import { expectToast } from './toasts';
import { VIEWER_TZ } from './network';

/** Well-formed (128 hex) but wrong: each is a `master_key_failed` security event of severity high. */
export const WRONG_KEYS = ['ab'.repeat(64), 'cd'.repeat(64), 'ef'.repeat(64)] as const;
/** Threat score of a high-severity event. */
export const HIGH = 7;

export const stat = (page: Page, label: string) => page.locator(`[data-stat="${label}"]`);
export const panel = (page: Page, title: string) => page.getByRole('region', { name: title, exact: true });

export async function getJson<T>(api: APIRequestContext, url: string, schema: { parse: (v: unknown) => T }): Promise<T> {
  const res = await api.get(url);
  expect(res.status(), url).toBe(200);
  return schema.parse(await res.json());
}

/** The stat cards show exactly what the overview call answers now. */
export async function expectCardsMatchApi(page: Page, api: APIRequestContext): Promise<Overview> {
  await page.getByRole('button', { name: 'Refresh' }).click();
  const o = await getJson(api, '/api/super-admin/overview', overviewSchema);
  await expect(stat(page, 'Total Members')).toHaveText(String(o.totalUsers));
  await expect(stat(page, 'Online Now')).toHaveText(String(o.onlineUsers));
  await expect(stat(page, 'Active (24 h)')).toHaveText(String(o.activeUsers));
  await expect(stat(page, 'Banned Members')).toHaveText(String(o.bannedUsers));
  await expect(stat(page, 'Total Messages')).toHaveText(String(o.totalMessages));
  return o;
}

/** On /super-admin: enter the key and wait for the console. */
export async function openConsole(page: Page, key = E2E_MASTER_KEY): Promise<void> {
  await page.getByLabel('Master Key', { exact: true }).fill(key);
  await page.getByRole('button', { name: 'Access Console' }).click();
  await expectToast(page, 'Creator Access Granted');
  await expect(page.getByRole('button', { name: 'Lock console' })).toBeVisible();
}

/** Wrong master keys entered on the sign-in card, each refused; the console stays shut. */
export async function enterWrongKeys(page: Page, keys: readonly string[]): Promise<void> {
  const field = page.getByLabel('Master Key', { exact: true });
  const submit = page.getByRole('button', { name: 'Access Console' });
  for (const wrong of keys) {
    await field.fill(wrong);
    await expect(submit).toBeEnabled();
    await submit.click();
    await expectToast(page, 'Access Denied', 'Invalid creator credentials');
    await expect(page.getByRole('button', { name: 'Lock console' })).toHaveCount(0);
    await page.getByRole('button', { name: 'Close notification' }).click();
  }
}

/** The key is nowhere in the browser's persistent storage, nor in a cookie. */
export async function expectKeyNotStored(page: Page): Promise<void> {
  const stored = await page.evaluate(async () => {
    const dump = (s: Storage) => Object.keys(s).map((k) => `${k}=${s.getItem(k) ?? ''}`);
    const dbs = await indexedDB.databases();
    return { local: dump(localStorage), session: dump(sessionStorage), idb: dbs.map((d) => d.name ?? '') };
  });
  const cookies = await page.context().cookies();
  const everything = [...stored.local, ...stored.session, ...stored.idb, ...cookies.map((c) => `${c.name}=${c.value}`)].join('\n');
  expect(everything).not.toContain(E2E_MASTER_KEY);
  expect(everything).not.toContain(E2E_MASTER_KEY.slice(0, 32));
}

/** Counts of the open heatmap, per local hour, as the grid shows them. */
export async function heatmapCells(page: Page): Promise<Record<string, number>> {
  const cells = await panel(page, 'Security Heatmap')
    .locator('td[data-hour]')
    .evaluateAll((tds) => tds.map((td) => [td.getAttribute('data-hour') ?? '', Number(td.getAttribute('data-count'))] as const));
  return Object.fromEntries(cells.filter(([, n]) => n > 0));
}

/** UTC hour starts as the viewer's local hour starts (what the grid is keyed by), computed in the page. */
export async function toLocalHours(page: Page, counts: { hour: string; count: number }[]): Promise<Record<string, number>> {
  return page.evaluate((list) => {
    const out: Record<string, number> = {};
    for (const { hour, count } of list) {
      const d = new Date(hour);
      d.setMinutes(0, 0, 0);
      out[d.toISOString()] = (out[d.toISOString()] ?? 0) + count;
    }
    return out;
  }, counts);
}

/** Local hour starts in the viewer's time zone, computed in Node for the database rows. */
export function localHoursInNode(counts: { hour: string; count: number }[]): Record<string, number> {
  const out: Record<string, number> = {};
  const fmt = new Intl.DateTimeFormat('en-US', { timeZone: VIEWER_TZ, minute: 'numeric' });
  for (const { hour, count } of counts) {
    // Whole-hour offsets keep UTC hour starts as local hour starts; a half-hour zone moves them back.
    const d = new Date(hour);
    const minute = Number(fmt.format(d));
    const start = new Date(d.getTime() - minute * 60_000).toISOString();
    out[start] = (out[start] ?? 0) + count;
  }
  return out;
}

export function riskRow(scope: Locator, attr: 'data-risk-ip' | 'data-risk-member', name: string) {
  const row = scope.locator(`[${attr}="${name}"]`);
  return {
    row,
    score: row.locator('[data-col="score"]'),
    events: row.locator('[data-col="events"]'),
    worst: row.locator('[data-col="worst"]'),
  };
}

/** Name, score and events of each risk row on screen (runs in the page). */
export function riskRowsOf(rows: Element[]): { name: string; score: number; events: number }[] {
  return rows.map((row) => ({
    name: row.getAttribute('data-risk-ip') ?? row.getAttribute('data-risk-member') ?? '',
    score: Number(row.querySelector('[data-col="score"]')?.textContent),
    events: Number(row.querySelector('[data-col="events"]')?.textContent),
  }));
}

/** The member's page has been sent back to the login screen. */
export async function memberIsGone(member: Member): Promise<void> {
  await member.page.waitForURL((u) => u.pathname === '/', { waitUntil: 'commit', timeout: 5_000 });
}
