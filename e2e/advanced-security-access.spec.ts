/**
 * The Command Center is the creator's: a signed-in member who opens /advanced-security meets the
 * master-key card and gets no data, from the screen or from the routes behind it. Paths that are
 * not screens still show the 404 page.
 */
import { routes } from '@enclave/protocol';
import { WRONG_KEYS } from './support/creator-console';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('advanced-security-access');

test('a member gets the master-key card and no security data', async ({ network }) => {
  const member = await network.join('mallory');
  const page = member.page;
  const securityCalls: string[] = [];
  page.on('request', (req) => {
    if (new URL(req.url()).pathname.startsWith('/api/security/')) securityCalls.push(req.url());
  });

  await page.goto('/advanced-security');
  await expect(page.getByRole('heading', { name: 'Creator Access' })).toBeVisible();
  await expect(page.getByText('Advanced Security Command Center · Enclave')).toBeVisible();
  await expect(page.getByLabel('Master Key', { exact: true })).toHaveAttribute('type', 'password');
  await expect(page.getByRole('region', { name: 'Security Command Center' })).toHaveCount(0);
  await expect(page.locator('[data-stat]')).toHaveCount(0);
  await shot(page, '01-master-key-card');

  await test.step('a wrong key is refused and shows nothing either', async () => {
    await page.getByLabel('Master Key', { exact: true }).fill(WRONG_KEYS[0]);
    await page.getByRole('button', { name: 'Access Console' }).click();
    await expectToast(page, 'Access Denied', 'Invalid creator credentials');
    await expect(page.getByRole('region', { name: 'Security Command Center' })).toHaveCount(0);
    await expect(page.getByText('Live Security Events')).toHaveCount(0);
    await shot(page, '02-wrong-key', { toasts: true });
  });
  expect(securityCalls).toEqual([]);

  await test.step("the routes behind the screen refuse the member's own session", async () => {
    for (const r of [routes.liveEvents, routes.securityMetrics, routes.blockedIps]) {
      const res = await page.request.get(r.path);
      expect(res.status(), r.path).toBe(401);
      expect(await res.json()).toMatchObject({ error: 'Master key required' });
    }
    const block = await page.request.post(routes.blockIp.path, { data: { ip: '203.0.113.50' } });
    expect(block.status()).toBe(401);
    const blocked = await network.creatorApi.get(routes.blockedIps.path);
    expect(await blocked.json()).toEqual({ blocked: [] });
  });
});

test('paths that are not screens still show the 404 page', async ({ page, server }) => {
  for (const path of ['/advanced-security/extra', '/p2p-network/extra', '/no-such-page']) {
    await page.goto(`${server.url}${path}`);
    await expect(page.getByRole('heading', { name: '404 Page Not Found' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Back to Enclave' })).toHaveAttribute('href', '/');
  }
  await shot(page, '03-not-found');
});
