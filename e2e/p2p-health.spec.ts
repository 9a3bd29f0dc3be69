/**
 * A member watches their connection at /p2p-network: the monitor shows a real band and latency,
 * the P2P test suite passes every check with measured figures (a ping over the socket, WebRTC, a
 * loop-back channel, its round-trip time and throughput), and when the server goes away the monitor
 * says disconnected and that it keeps trying (the suite, run then, fails signaling and says why, while
 * the loop-back still passes), then returns to a good band once the server is back.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';

const shot = storyShots('p2p-health');

const monitorStatus = (page: Page) => page.locator('[data-health-status]');
const stat = (page: Page, label: string) => page.getByRole('group', { name: label });

/** The raw number a figure carries (data-value). */
async function figure(locator: Locator): Promise<number> {
  const value = Number(await locator.locator('[data-value]').getAttribute('data-value'));
  expect(Number.isFinite(value), 'a figure is a number').toBe(true);
  return value;
}

test('the monitor and the P2P test suite report real figures, through a server outage', async ({ network }) => {
  const dana = await network.join('dana');
  const page = dana.page;
  await page.goto('/p2p-network');

  await test.step('the monitor shows a band from a real check, with its latency', async () => {
    await expect(monitorStatus(page)).toHaveAttribute('data-health-status', /^(excellent|good)$/, { timeout: 6_000 });
    await expect(page.getByRole('status', { name: /^Connection: (Excellent|Good)$/ })).toBeVisible();
    expect(await figure(stat(page, 'Latency'))).toBeGreaterThan(0);
    expect(await figure(stat(page, 'Packet loss'))).toBe(0);
    await expect(stat(page, 'Packet loss')).toContainText(/unanswered share of \d+ server checks?, last minute/);
    // Outside a room there is no link to measure throughput on: no figure, and why.
    await expect(stat(page, 'Throughput')).toContainText('—');
    await expect(stat(page, 'Throughput')).toContainText('join a room to measure');
    await expect(stat(page, 'Last seen').locator('time')).toBeVisible();
    await expect(page.locator('[data-hint]')).toHaveCount(0);
    await shot(page, '01-monitor');
  });

  await test.step('the test suite runs its checks in sequence, all passing with figures', async () => {
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect(page.locator('[data-suite-summary]')).toContainText('Finished', { timeout: 60_000 });
    const tests = page.locator('[data-p2p-test]');
    await expect(tests).toHaveCount(5);
    for (const id of ['signaling', 'webrtc', 'loopback', 'rtt', 'throughput']) {
      const row = page.locator(`[data-p2p-test="${id}"]`);
      await expect(row, `${id} passed or warned`).toHaveAttribute('data-status', /^(passed|warning)$/);
      expect(await figure(row), `${id}'s figure`).toBeGreaterThan(0);
    }
    await expect(page.locator('[data-p2p-test="loopback"]')).toContainText('no server carried it');
    await expect(page.locator('[data-p2p-test="throughput"]')).toContainText('confirmed by the far end');
    await expect(page.getByRole('button', { name: 'Run tests' })).toBeEnabled();
    await shot(page, '02-test-suite');
  });

  await test.step('the server stops: disconnected, and the monitor says it keeps trying', async () => {
    await network.server.stop();
    await expect(monitorStatus(page)).toHaveAttribute('data-health-status', 'disconnected', { timeout: 12_000 });
    await expect(page.getByRole('status', { name: 'Connection: Disconnected' })).toBeVisible();
    await expect(page.locator('[data-hint="reconnecting"]')).toContainText('Trying to reconnect automatically');
    await expect(stat(page, 'Latency')).toContainText('last check failed');
    // The failed check counts in the loss window.
    expect(await figure(stat(page, 'Packet loss'))).toBeGreaterThan(0);
    await shot(page, '03-disconnected');
  });

  await test.step('the suite during the outage: signaling fails and says why; the loop-back needs no server', async () => {
    await page.getByRole('button', { name: 'Run tests' }).click();
    await expect(page.locator('[data-suite-summary]')).toContainText(/Finished: \d passed, \d with a warning, 1 failed/, {
      timeout: 60_000,
    });
    const signaling = page.locator('[data-p2p-test="signaling"]');
    await expect(signaling).toHaveAttribute('data-status', 'failed');
    await expect(signaling).toContainText('The real-time connection to the server is not open and signed in');
    for (const id of ['webrtc', 'loopback', 'rtt', 'throughput']) {
      await expect(page.locator(`[data-p2p-test="${id}"]`), `${id} passed without the server`).toHaveAttribute(
        'data-status',
        /^(passed|warning)$/,
      );
    }
    await shot(page, '04-suite-during-outage');
  });

  await test.step('the server is back on the same port: a good band again, the outage still in the loss figure', async () => {
    await network.server.start();
    await expect(monitorStatus(page)).toHaveAttribute('data-health-status', /^(excellent|good)$/, { timeout: 15_000 });
    await expect(page.locator('[data-hint="reconnecting"]')).toHaveCount(0);
    expect(await figure(stat(page, 'Latency'))).toBeGreaterThan(0);
    expect(await figure(stat(page, 'Packet loss'))).toBeGreaterThan(0);
    await expect(page.locator('[data-hint="loss"]')).toBeVisible();
    await shot(page, '05-back');
  });
});
