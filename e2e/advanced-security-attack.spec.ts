/**
 * The creator watches an attack live at /advanced-security. From addresses of their own (the
 * server sits behind one trusted proxy, TRUST_PROXY=1), attackers guess access tokens past the
 * login limit, guess the master key, probe the decoys, try a canary key and send a tampered
 * client's breach report. Each shows up within one 2-second poll with its severity and IP
 * analysis; Pause stops the polling and Resume restarts it; "Block IP" shuts an address out until
 * it is unblocked. A member whose client reports a breach is locked and unlocked from the console.
 */
import { randomBytes } from 'node:crypto';
import { errorCodes, errorTexts, generateKeysResponseSchema, limits, routes } from '@enclave/protocol';
import type { APIRequestContext } from '@playwright/test';
import { eventCards, fromAddress, openCommandCenter, region, securityRequests, tile, WITHIN_A_POLL } from './support/advanced-security';
import { WRONG_KEYS } from './support/creator-console';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('advanced-security-attack');

/** Attackers' addresses (RFC 5737 documentation ranges: only ever written into X-Forwarded-For). */
const ip = {
  tokens: '203.0.113.10',
  masterKey: '203.0.113.11',
  decoys: '203.0.113.12',
  canary: '203.0.113.13',
  tampered: '203.0.113.14',
};

test.use({ serverEnv: { TRUST_PROXY: '1', BREACH_POLICY: 'lock' } });

/** The decoy routes of the route table, each one an endpoint the server serves. */
const DECOY_ENDPOINTS = Object.values(routes).filter((r) => r.path.startsWith('/api/decoy/')).length;

const breachReport = (addresses?: object) => ({
  reason: 'Debugger detected',
  timestamp: new Date().toISOString(),
  threatVectors: [
    { type: 'debugger_detected', severity: 'high', description: 'A debugger paused the page', timestamp: new Date().toISOString() },
  ],
  securityMetrics: { threatLevel: 7, detections: 1 },
  ...(addresses ? { addresses } : {}),
});

test('an attack shows up live, and the creator blocks and unblocks its address', async ({ network, playwright }) => {
  const page = await network.newCreatorPage();
  const polled = securityRequests(page);
  await openCommandCenter(page);
  const events = region(page, 'Live Security Events');
  const decoyFigure = region(page, 'Obfuscation Status').locator('[data-obfuscation-figure="Decoys"]');
  const attackers: APIRequestContext[] = [];
  const attacker = async (address: string) => {
    const a = await fromAddress(playwright, network.server, address);
    attackers.push(a);
    return a;
  };

  await test.step('a calm network: nothing detected, Live', async () => {
    await expect(events.getByText('No security events detected')).toBeVisible();
    await expect(events.getByText('System is secure')).toBeVisible();
    await expect(page.getByText('No threats detected - System is secure')).toBeVisible();
    // BREACH_POLICY=lock is in force from the start; nothing else is.
    await expect(page.locator('[data-countermeasure]')).toHaveText(['Breach policy lockActive']);
    await expect(events.locator('[data-live-state]')).toHaveText('Live');
    await expect(page.getByText('Live Monitoring')).toBeVisible();
    await expect(tile(page, 'Obfuscation')).toHaveText('ENHANCED');
    await expect(tile(page, 'Emergency')).toHaveText('STANDBY');
    // The network's obfuscation figures, once for the page, each number of Decoys named.
    await expect(page.locator('[data-obfuscation]')).toHaveCount(1);
    await expect(decoyFigure).toHaveText(`0 hits on ${DECOY_ENDPOINTS} endpoints`);
    await expect(page.locator('[data-protection-level]')).toHaveText('MINIMAL');
    await shot(page, '01-calm');
  });

  await test.step('token guesses past the login limit: failed logins, then the rate limit', async () => {
    const a = await attacker(ip.tokens);
    const tries = limits.loginAttempts + 2;
    const statuses: number[] = [];
    for (let i = 0; i < tries; i++) {
      const res = await a.post(routes.login.path, { data: { loginKey: randomBytes(32).toString('hex') } });
      statuses.push(res.status());
    }
    expect(statuses).toEqual([...Array<number>(limits.loginAttempts).fill(401), 429, 429]);
    const failed = eventCards(page, 'login_failed', ip.tokens);
    await expect(failed).toHaveCount(1, { timeout: WITHIN_A_POLL });
    await expect(failed.locator('[data-severity]')).toHaveText('MEDIUM');
    await expect(failed.locator('[data-count]')).toHaveText(`${limits.loginAttempts} events`);
    const limited = eventCards(page, 'rate_limit', ip.tokens);
    await expect(limited).toHaveCount(1);
    await expect(limited.locator('[data-severity]')).toHaveText('MEDIUM');
    await expect(limited.locator('[data-count]')).toHaveText('2 events');

    // IP analysis: the client address as the proxy passed it, nothing the client did not report.
    await expect(failed.locator('[data-ip="client"]')).toHaveText(ip.tokens);
    for (const part of ['local', 'public', 'webrtc']) await expect(failed.locator(`[data-ip="${part}"]`)).toHaveText('Unknown');
    await expect(failed.locator('[data-ip-line]')).toContainText('public');
    await expect(failed.locator('[data-headers]')).toHaveCount(0);
    await failed.getByRole('button', { name: /^Headers \(\d+\)$/ }).click();
    await expect(failed.locator('[data-headers]')).toContainText('x-forwarded-for');
    await expect(failed.locator('[data-headers]')).toContainText(ip.tokens);
    await expect(failed.locator('[data-headers]')).not.toContainText('authorization');
    await expect(page.locator('[data-countermeasure="rate_limiting"]')).toContainText('Rate limiting');
  });

  await test.step('master-key guesses, decoy probes and a canary key, each with its severity', async () => {
    const m = await attacker(ip.masterKey);
    for (const key of WRONG_KEYS) {
      expect((await m.get(routes.overview.path, { headers: { Authorization: `SuperAdmin ${key}` } })).status()).toBe(403);
    }
    const masterKey = eventCards(page, 'master_key_failed', ip.masterKey);
    await expect(masterKey).toHaveCount(1, { timeout: WITHIN_A_POLL });
    await expect(masterKey.locator('[data-severity]')).toHaveText('HIGH');
    await expect(masterKey.locator('[data-count]')).toHaveText(`${WRONG_KEYS.length} events`);

    const d = await attacker(ip.decoys);
    expect((await d.post(routes.decoyAuth.path, { data: { username: 'admin', password: 'admin' } })).status()).toBe(200);
    expect((await d.post(routes.decoyValidate.path, { data: {} })).status()).toBe(200);
    expect((await d.get('/api/decoy/admin/export')).status()).toBe(200);
    const decoys = eventCards(page, 'decoy_hit', ip.decoys);
    await expect(decoys).toHaveCount(3, { timeout: WITHIN_A_POLL });
    for (const sev of await decoys.locator('[data-severity]').allTextContents()) expect(sev).toBe('HIGH');
    await expect(decoys.filter({ hasText: '/api/decoy/admin/export' })).toHaveCount(1);
    await expect(decoyFigure).toHaveText(`3 hits on ${DECOY_ENDPOINTS} endpoints`, { timeout: WITHIN_A_POLL });
    await expect(page.locator('[data-obfuscation]')).toHaveCount(1);
    await expect(page.locator('li[data-event-id] [data-obfuscation]')).toHaveCount(0);

    const canaryRes = await network.creatorApi.post(routes.generateKeys.path, { data: { quantity: 1, canary: true } });
    const canary = generateKeysResponseSchema.parse(await canaryRes.json()).keys[0]!.key;
    const c = await attacker(ip.canary);
    const validated = await c.post(routes.validateKey.path, { data: { inviteKey: canary } });
    expect(await validated.json()).toMatchObject({ valid: false, reason: errorTexts.keyUnknown });
    const canaryCard = eventCards(page, 'canary_key_used', ip.canary);
    await expect(canaryCard).toHaveCount(1, { timeout: WITHIN_A_POLL });
    await expect(canaryCard.locator('[data-severity]')).toHaveText('CRITICAL');
  });

  await test.step("a tampered client's breach report carries the addresses it knows", async () => {
    const t = await attacker(ip.tampered);
    const addresses = { localNetworkIP: '192.168.1.20', publicIP: '203.0.113.20', webrtcIPs: ['192.168.1.20', '203.0.113.20'] };
    expect((await t.post(routes.breachReport.path, { data: breachReport(addresses) })).status()).toBe(200);
    const report = eventCards(page, 'breach_report', ip.tampered);
    await expect(report).toHaveCount(1, { timeout: WITHIN_A_POLL });
    await expect(report.locator('[data-severity]')).toHaveText('HIGH');
    await expect(report.locator('[data-ip="local"]')).toHaveText('192.168.1.20');
    await expect(report.locator('[data-ip="public"]')).toHaveText('203.0.113.20');
    await expect(report.locator('[data-ip="webrtc"]')).toHaveText('192.168.1.20, 203.0.113.20');
    await expect(report.locator('[data-details]')).toContainText('Debugger detected');
    await expect(tile(page, 'Deobfuscation')).toHaveText('1');
  });

  await test.step('the Command Center: under attack, the newest vectors first', async () => {
    await expect(page.getByRole('alert').filter({ hasText: 'SECURITY ALERT: System Under Attack' })).toContainText(
      'Advanced threat patterns detected. Enhanced protection measures are active.',
    );
    // The network's score of the last hour: 5 + 2 medium (3 each), 3 + 3 high (7), a critical (15), a high report.
    const networkScore = 3 * (limits.loginAttempts + 2) + 7 * (WRONG_KEYS.length + 3) + 15 + 7;
    const sources = page.getByText(/^Network \d+ \(events of the last hour\) \+ this browser \d+/);
    await expect(sources).toContainText(`Network ${networkScore} `);
    const browserScore = Number(/this browser (\d+)/.exec((await sources.textContent()) ?? '')?.[1]);
    await expect(page.getByRole('progressbar', { name: 'Threat level' })).toHaveAttribute(
      'aria-valuenow',
      String(Math.min(100, networkScore + browserScore)),
    );
    await expect(page.locator('[data-protection-level]')).toHaveText('MILITARY');
    const vectors = page.getByRole('list', { name: 'Recent Threat Vectors' }).locator('li');
    await expect(vectors).toHaveCount(8);
    await expect(vectors.first()).toHaveAttribute('data-vector', 'breach_report');
    await expect(vectors.first().locator('[data-source]')).toHaveText(ip.tampered);
    await expect(tile(page, 'Active Threats')).toHaveText(String(WRONG_KEYS.length + 3 + 1 + 1));
    await shot(page, '02-under-attack');
  });

  await test.step('Pause stops the polling; Resume brings what happened meanwhile', async () => {
    await page.getByRole('button', { name: 'Pause' }).click();
    await expect(events.locator('[data-live-state]')).toHaveText('Offline');
    await expect(page.getByText('Live Monitoring')).toHaveCount(0);
    // A poll already on its way when Pause was pressed may still land: count from after it.
    await page.waitForTimeout(500);
    const before = polled.length;
    const d = await attacker(ip.decoys);
    expect((await d.post(routes.decoyDecrypt.path, { data: {} })).status()).toBe(200);
    await page.waitForTimeout(4_500);
    expect(polled.slice(before)).toEqual([]);
    await expect(eventCards(page, 'decoy_hit', ip.decoys)).toHaveCount(3);
    await expect(decoyFigure).toHaveText(`3 hits on ${DECOY_ENDPOINTS} endpoints`);
    await shot(page, '03-paused');

    await page.getByRole('button', { name: 'Resume' }).click();
    await expect(events.locator('[data-live-state]')).toHaveText('Live');
    await expect(eventCards(page, 'decoy_hit', ip.decoys)).toHaveCount(4, { timeout: WITHIN_A_POLL });
    await expect(decoyFigure).toHaveText(`4 hits on ${DECOY_ENDPOINTS} endpoints`, { timeout: WITHIN_A_POLL });
    expect(polled.length).toBeGreaterThan(before);
  });

  await test.step('"Block IP" on an event shuts its address out; the blocked list shows it', async () => {
    const failed = eventCards(page, 'login_failed', ip.tokens);
    await failed.getByRole('button', { name: `Block IP ${ip.tokens}` }).click();
    const row = page.locator(`[data-blocked-ip="${ip.tokens}"]`);
    await expect(row).toBeVisible({ timeout: WITHIN_A_POLL });
    await expect(row.locator('[data-col="reason"]')).toHaveText('Manual block from admin panel');
    await expect(row.locator('[data-col="expires"]')).toHaveText('Until unblocked');
    await expect(failed.getByRole('button', { name: `Block IP ${ip.tokens}` })).toBeDisabled();
    await expect(failed.getByRole('button', { name: `Block IP ${ip.tokens}` })).toHaveText('Blocked');
    await expect(tile(page, 'Blocked IPs')).toHaveText('1', { timeout: WITHIN_A_POLL });
    await expect(page.locator('[data-countermeasure="ip_blocking"]')).toContainText('IP blocking');

    const a = await attacker(ip.tokens);
    const refused = await a.get(routes.overview.path, { headers: { Authorization: `SuperAdmin ${WRONG_KEYS[0]}` } });
    expect(refused.status()).toBe(403);
    expect(await refused.json()).toMatchObject({ error: errorTexts.ipBlocked });
    expect((await a.head(routes.health.path)).status()).toBe(403);
    // Another address is not concerned.
    expect((await (await attacker(ip.canary)).head(routes.health.path)).status()).toBe(200);
    await expect(row.locator('[data-col="hits"]')).toHaveText('2', { timeout: WITHIN_A_POLL });
    const hits = eventCards(page, 'blocked_ip_hit', ip.tokens);
    await expect(hits).toHaveCount(1, { timeout: WITHIN_A_POLL });
    await expect(hits.locator('[data-severity]')).toHaveText('MEDIUM');
    await shot(page, '04-blocked');
  });

  await test.step('Unblock lets the address in again', async () => {
    await page.getByRole('button', { name: `Unblock ${ip.tokens}` }).click();
    await expectToast(page, 'Address Unblocked', `${ip.tokens} can reach the network again.`);
    await expect(page.getByText('No address is blocked')).toBeVisible();
    await expect(tile(page, 'Blocked IPs')).toHaveText('0', { timeout: WITHIN_A_POLL });
    const a = await attacker(ip.tokens);
    expect((await a.head(routes.health.path)).status()).toBe(200);
    await expect(eventCards(page, 'login_failed', ip.tokens).getByRole('button', { name: `Block IP ${ip.tokens}` })).toHaveText('Block IP');
  });

  await Promise.all(attackers.map((a) => a.dispose()));
});

test('a member whose own client reports a breach is locked until the creator unlocks them', async ({ network }) => {
  const member = await network.join('trinity');
  const page = await network.newCreatorPage();
  await openCommandCenter(page);

  // The member's client reports, with the member's own session (BREACH_POLICY=lock).
  const res = await member.page.request.post(routes.breachReport.path, { data: breachReport() });
  expect(await res.json()).toEqual({ policy: 'lock', action: 'locked' });
  const report = eventCards(page, 'breach_report', '127.0.0.1');
  await expect(report).toHaveCount(1, { timeout: WITHIN_A_POLL });
  await expect(report.locator('[data-details]')).toContainText('trinity');
  await expect(page.getByRole('list', { name: 'Recent Threat Vectors' })).toContainText("A member's client reported tampering (trinity)");

  await page.getByRole('link', { name: 'Back to Control Panel' }).click();
  await expect(page.getByRole('button', { name: 'Lock console' })).toBeVisible();
  const row = page.locator('[data-member="trinity"]');
  await expect(row.locator('[data-member-locked]')).toHaveText('Locked');
  await shot(page, '05-member-locked');
  // Locked: the server refuses the sign-in with its own code and text.
  const refused = member.page.waitForResponse((r) => r.url().endsWith(routes.login.path));
  await network.signIn(member.page, member.token);
  const answer = await refused;
  expect(answer.status()).toBe(403);
  expect(await answer.json()).toEqual({ error: errorTexts.locked, code: errorCodes.locked });
  await expect(member.page).not.toHaveURL(/\/chat$/);

  await page.getByRole('button', { name: 'Unlock trinity' }).click();
  await expectToast(page, 'User Unlocked', 'trinity can sign in again.');
  await expect(row.locator('[data-member-locked]')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Unlock trinity' })).toHaveCount(0);
  await network.signIn(member.page, member.token);
  await expect(member.page).toHaveURL(/\/chat$/);
});
