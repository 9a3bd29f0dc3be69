/**
 * The creator reads the security panels after someone tried wrong master keys: the heatmap shows
 * them in the viewer's own hours, the risk panel scores the address and follows a new attempt by
 * itself, the compliance dashboard checks this deployment. One panel is open at a time.
 */
import { complianceSchema, heatmapSchema, riskSchema } from '@enclave/protocol';
import {
  enterWrongKeys,
  getJson,
  heatmapCells,
  HIGH,
  openConsole,
  panel,
  riskRow,
  toLocalHours,
  WRONG_KEYS,
} from './support/creator-console';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('creator-security-panels');

test('the panels show the wrong master keys and check this deployment', async ({ network, playwright }) => {
  const api = network.creatorApi;
  const page = await network.newCreatorPage();
  // The page's own clock, running as usual, so that the risk panel's 10 s refresh can be moved on to.
  await page.clock.install();
  await page.goto('/super-admin');
  await enterWrongKeys(page, WRONG_KEYS.slice(0, 2));
  let wrongKeys = 2;
  await openConsole(page);

  await test.step('heatmap: the wrong keys, in this hour', async () => {
    await page.getByRole('button', { name: 'Security Heatmap' }).click();
    const heatmap = panel(page, 'Security Heatmap');
    await expect(heatmap).toBeVisible();
    await heatmap.getByLabel('Event type').selectOption('master_key_failed');
    const fromApi = await getJson(api, '/api/super-admin/security/heatmap', heatmapSchema);
    const expected = await toLocalHours(
      page,
      fromApi.cells.filter((c) => c.type === 'master_key_failed'),
    );
    expect(Object.values(expected).reduce((a, b) => a + b, 0)).toBe(wrongKeys);
    await expect.poll(() => heatmapCells(page)).toEqual(expected);
    await expect(heatmap.locator('[data-type-total="master_key_failed"]')).toContainText(String(wrongKeys));
    await shot(page, '01-heatmap');
  });

  await test.step('risk: 127.0.0.1 scores 7 per wrong key, refreshed every 10 s; opening it closes the heatmap', async () => {
    await page.getByRole('button', { name: 'Risk Visualizer' }).click();
    await expect(panel(page, 'Security Heatmap')).toHaveCount(0);
    const risk = panel(page, 'Risk Visualizer');
    const ip = riskRow(risk, 'data-risk-ip', '127.0.0.1');
    await expect(ip.score).toHaveText(String(HIGH * wrongKeys));
    await expect(ip.events).toHaveText(String(wrongKeys));
    await expect(ip.worst).toHaveText('high');
    await expect(risk.getByText('No member is linked to a security event in the last 7 days.')).toBeVisible();
    await shot(page, '02-risk');

    // A third wrong key, from elsewhere: the open panel shows it by itself at its next refresh,
    // 10 s on (the page's clock is moved on rather than waited for).
    const res = await playwright.request.newContext({ baseURL: network.server.url });
    expect((await res.get('/api/super-admin/overview', { headers: { Authorization: `SuperAdmin ${WRONG_KEYS[2]}` } })).status()).toBe(403);
    await res.dispose();
    wrongKeys += 1;
    await page.clock.fastForward(10_000);
    await expect(ip.score).toHaveText(String(HIGH * wrongKeys));
    const fromApi = await getJson(api, '/api/super-admin/security/risk', riskSchema);
    expect(fromApi.ips).toEqual([expect.objectContaining({ ip: '127.0.0.1', score: HIGH * wrongKeys, events: wrongKeys, worst: 'high' })]);
  });

  await test.step('compliance: checks of this deployment; opening it closes the risk panel', async () => {
    await page.getByRole('button', { name: 'Compliance Dashboard' }).click();
    await expect(panel(page, 'Risk Visualizer')).toHaveCount(0);
    const compliance = panel(page, 'Compliance Dashboard');
    const https = compliance.locator('[data-check="HTTPS in front"]');
    await expect(https).toHaveAttribute('data-status', 'non_compliant');
    await expect(https).toContainText('Non-compliant');
    await expect(https.locator('[data-col="score"]')).toHaveText('0/100');
    const master = compliance.locator('[data-check="Master key configured"]');
    await expect(master).toHaveAttribute('data-status', 'compliant');
    await expect(master).toContainText('MASTER_KEY');
    // The e2e server's short rate-limit windows are a testing aid the dashboard calls out.
    const limits = compliance.locator('[data-check="Rate limits on"]');
    await expect(limits).toHaveAttribute('data-status', 'warning');
    await expect(limits).toContainText('Looser than the defaults');
    const fromApi = await getJson(api, '/api/super-admin/security/compliance', complianceSchema);
    await expect(compliance.locator('[data-check]')).toHaveCount(fromApi.checks.length);
    for (const check of fromApi.checks) {
      await expect(compliance.locator(`[data-check="${check.name}"]`)).toHaveAttribute('data-status', check.status);
    }
    const mean = Math.round(fromApi.checks.reduce((s, c) => s + c.score, 0) / fromApi.checks.length);
    await expect(compliance.locator(`[data-compliance-score="${mean}"]`)).toBeVisible();
    await shot(page, '03-compliance');
    await page.getByRole('button', { name: 'Compliance Dashboard' }).click();
    await expect(compliance).toHaveCount(0);
  });
});
