/**
 * Enclave installs as an app (web/public/manifest.webmanifest) and its shell opens offline after
 * one visit (web/src/sw/sw.ts): the login screen then says why nothing works yet. The same worker
 * shows a Web Push as a notification that names nobody.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expectAccessible, expectNoOverflow } from './support/a11y';
import { EnclaveServer } from './support/server';
import { storyShots } from './support/shots';
import { expect, test } from './support/test';

const shot = storyShots('installable-app');
const server = new EnclaveServer();
test.beforeAll(async () => server.start());
test.afterAll(async () => server.dispose());

const offlineLine = 'You are offline. Enclave needs the network to sign in.';

/** The visit's service worker has installed the shell and controls the page. */
async function controlledByServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
  });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
}

// Chromium never offers to install from an incognito profile, as Playwright's contexts are: this
// story runs in a profile on disk of its own.
test('Chromium finds nothing stopping an install', async ({ playwright, launchOptions }) => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-install-'));
  const context = await playwright.chromium.launchPersistentContext(profile, launchOptions);
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(server.url + '/');
    await controlledByServiceWorker(page);
    const cdp = await context.newCDPSession(page);
    const { installabilityErrors } = await cdp.send('Page.getInstallabilityErrors');
    expect(installabilityErrors).toEqual([]);
    const { url, errors } = await cdp.send('Page.getAppManifest');
    expect(url).toBe(server.url + '/manifest.webmanifest');
    expect(errors).toEqual([]);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
});

test('after one visit the login screen opens offline and says it is offline; online again, the line goes', async ({ page, context }) => {
  await page.goto(server.url + '/');
  await expect(page.getByRole('heading', { name: 'Enclave', level: 1 })).toBeVisible();
  await expect(page.getByText(offlineLine)).toHaveCount(0);
  await controlledByServiceWorker(page);

  await context.setOffline(true);
  // The server gone too: nothing can come from the network, whether or not the emulation reaches the worker.
  await server.stop();
  const reload = await page.reload();
  // From the worker's cache, not from the server.
  expect(reload?.fromServiceWorker()).toBe(true);
  await expect(page.getByRole('heading', { name: 'Enclave', level: 1 })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: offlineLine })).toBeVisible();

  for (const size of [
    { name: 'laptop', width: 1366, height: 768 },
    { name: 'phone', width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await expectNoOverflow(page);
    await expectAccessible(page);
    await shot(page, `offline-login-${size.name}`);
  }

  await server.start();
  await context.setOffline(false);
  await expect(page.getByText(offlineLine)).toHaveCount(0);
});

test('the worker keeps the public app files only: no API answer, nothing of the socket', async ({ page }) => {
  await page.goto(server.url + '/');
  await controlledByServiceWorker(page);
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) urls.push(new URL(request.url).pathname);
    }
    return urls;
  });
  expect(cached).toContain('/index.html');
  expect(cached.some((p) => p.startsWith('/assets/') && p.endsWith('.js'))).toBe(true);
  expect(cached.filter((p) => p.startsWith('/api') || p.startsWith('/ws'))).toEqual([]);
});

test('a push shows one "New message" notification that names nobody, whatever the payload says', async ({ page, context }) => {
  await context.grantPermissions(['notifications'], { origin: server.url });
  await page.goto(server.url + '/');
  await controlledByServiceWorker(page);
  const cdp = await context.newCDPSession(page);
  const registered = new Promise<string>((resolve) => {
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
      const ours = registrations.find((r) => r.scopeURL === server.url + '/' && !r.isDeleted);
      if (ours) resolve(ours.registrationId);
    });
  });
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registered;
  // Two pushes, one claiming a sender and a text: the worker shows neither, and one notification.
  for (const data of ['{"from":"mallory","text":"secret plan"}', '']) {
    await cdp.send('ServiceWorker.deliverPushMessage', { origin: server.url, registrationId, data });
  }
  await expect
    .poll(() =>
      page.evaluate(async () => {
        const shown = await (await navigator.serviceWorker.ready).getNotifications();
        return shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag }));
      }),
    )
    .toEqual([{ title: 'New message', body: '', tag: 'enclave-new-message' }]);
});
