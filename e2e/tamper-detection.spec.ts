/**
 * The browser's tamper detection (docs/spec.md §4, docs/security.md §10): ten minutes of ordinary
 * use trip nothing, with the page's clock fast-forwarded through every scheduled check; what a
 * browser extension does (wrapped fetch and XMLHttpRequest, added script elements) warns and is
 * recorded but never escalates, on the login screen or after it; forced strikes on the login
 * screen escalate as specified (decoys after 2 s and 4 s, a wipe and the breach screen at the
 * third, / 3 s later); a critical detection wipes at once, and in the chat reports to the server
 * once.
 */
import { breachReportSchema, liveEventsResponseSchema } from '@enclave/protocol';
import type { BrowserContext, Page } from '@playwright/test';
import { browserData } from './support/browser-data';
import { joinThroughUi } from './support/members';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('tamper-detection');

/** Fake time advances in steps shorter than the socket's pong deadline (10 s), with real time between for the network. */
const STEP_MS = 5_000;
const REAL_PAUSE_MS = 25;
const MINUTE = 60_000;

/** Requests a detection would cause: decoys and breach reports. */
function countermeasureRequests(context: BrowserContext) {
  const seen: { method: string; path: string; body: string | null }[] = [];
  context.on('request', (req) => {
    const path = new URL(req.url()).pathname;
    if (path.startsWith('/api/decoy/') || path === '/api/security/breach') seen.push({ method: req.method(), path, body: req.postData() });
  });
  return seen;
}

const log = (page: Page) => page.getByRole('log', { name: 'Conversation history' });

async function say(from: Page, to: Page, text: string): Promise<void> {
  await from.getByRole('textbox', { name: 'Message' }).fill(text);
  await from.getByRole('button', { name: 'Send', exact: true }).click();
  await expect(log(to).getByText(text, { exact: true })).toBeVisible();
}

const realWait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const breachHeading = (page: Page) => page.getByRole('heading', { name: 'SECURITY BREACH DETECTED' });

/** The login screen's notice of what escalates nothing (web/src/security/TamperWarning.tsx). */
const tamperWarning = (page: Page) => page.getByRole('status').filter({ hasText: 'Something in this browser is changing this page.' });

/** An inert script element from elsewhere (a non-JavaScript type: nothing loads and the CSP has nothing to refuse). */
function addScriptElement(page: Page, src: string): Promise<void> {
  return page.evaluate((url) => {
    const script = document.createElement('script');
    script.type = 'text/plain';
    script.src = url;
    document.body.append(script);
  }, src);
}

test('an extension that wraps fetch and XMLHttpRequest and adds scripts is recorded and shown, never wipes, and the member signs in', async ({
  network,
}) => {
  const context = await network.newContext();
  // What common extensions do before any page script runs: wrappers that call the originals.
  await context.addInitScript(() => {
    const originalFetch = window.fetch;
    window.fetch = function fetch(this: unknown, ...args: Parameters<typeof window.fetch>) {
      return originalFetch.apply(this, args);
    };
    const { open, send } = XMLHttpRequest.prototype;
    XMLHttpRequest.prototype.open = function (this: XMLHttpRequest, ...args: unknown[]) {
      return (open as (...a: unknown[]) => void).apply(this, args);
    };
    XMLHttpRequest.prototype.send = function (this: XMLHttpRequest, ...args: Parameters<XMLHttpRequest['send']>) {
      return send.apply(this, args);
    };
  });
  const [key] = await network.mintKeys(1);
  const alice = await joinThroughUi(context, key!, 'alice');
  const page = alice.page;

  // Signed out, back on the login screen (a fresh page: the extension's wrappers are there again).
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
  // What the browser holds that a wipe would clear: storage, a cache, the key store (as the
  // escalation test below makes it).
  await page.evaluate(async () => {
    localStorage.setItem('enclave.user', '{}');
    sessionStorage.setItem('enclave.notice', '{}');
    await (await caches.open('enclave-test')).put('/probe', new Response('x'));
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open('enclave');
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    const tx = db.transaction(['identity'], 'readwrite');
    tx.objectStore('identity').put({ note: 'stand-in for a member identity' }, 'stand-in');
    await new Promise((resolve) => (tx.oncomplete = resolve));
    db.close();
  });
  const held = await browserData(page);
  expect(held).toMatchObject({ session: 1, caches: 1, records: { identity: 1 } });
  expect(held.local).toBeGreaterThanOrEqual(1);

  // The extension adds a script element, and the login screen's native check (every 10 s) finds its wrappers.
  await addScriptElement(page, 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/inject.js');
  await tamperWarning(page).getByText('What was found (4)').click({ timeout: 15_000 });
  await expect(tamperWarning(page).getByRole('listitem')).toHaveText([
    'Unauthorized script injection: chrome-extension://abcdefghijklmnopabcdefghijklmnop',
    "Modified native function: fetch is not the browser's own",
    "Modified native function: XMLHttpRequest.prototype.open is not the browser's own",
    "Modified native function: XMLHttpRequest.prototype.send is not the browser's own",
  ]);
  await shot(page, '04-extension-warning-on-login');

  // Nothing wiped, no breach screen (and, checked for every test, no decoy or breach report sent).
  await expect(breachHeading(page)).toBeHidden();
  expect(await browserData(page)).toEqual(held);

  // Alice signs in and reaches the chat; the monitor there records the same wrappers and escalates nothing.
  await page.getByLabel('Access Token', { exact: true }).fill(alice.token);
  await page.getByRole('button', { name: 'Decrypt & Access' }).click();
  await expect(page).toHaveURL(/\/chat$/);
  await expect(page.locator('[data-connection-state="authenticated"]')).toBeVisible();
  await page.getByRole('link', { name: 'Security' }).click();
  const detections = page.getByRole('region', { name: 'Browser detections' }).getByRole('listitem');
  await expect(detections.filter({ hasText: "XMLHttpRequest.prototype.send is not the browser's own" })).toHaveCount(2, {
    timeout: 10_000,
  });
  const severities = await detections
    .locator('[data-severity]')
    .evaluateAll((badges) => badges.map((b) => b.getAttribute('data-severity')));
  expect(new Set(severities)).toEqual(new Set(['medium']));
  await expect(breachHeading(page)).toBeHidden();
});

test('ten minutes of ordinary use trip no detection', async ({ network }) => {
  test.setTimeout(240_000);
  const bob = await network.join('bob');
  const context = await network.newContext();
  const suspicious = countermeasureRequests(context);
  // The clock runs on by itself too; runFor adds the ten minutes, firing every check on its way.
  await context.clock.install();
  let fakeMs = 0;
  const advance = async (page: Page, ms: number) => {
    for (let done = 0; done < ms; done += STEP_MS) {
      await page.clock.runFor(STEP_MS);
      fakeMs += STEP_MS;
      await realWait(REAL_PAUSE_MS);
    }
  };

  // A minute on the login screen (its debugger probe and native checks), then joining.
  const first = await context.newPage();
  await first.goto('/');
  await advance(first, MINUTE);
  await first.close();
  const [key] = await network.mintKeys(1);
  const alice = await joinThroughUi(context, key!, 'alice');
  const page = alice.page;
  await advance(page, 2 * MINUTE);

  // Talking both ways.
  await say(page, bob.page, 'Hello from a long session');
  await say(bob.page, page, 'Bob hears you');
  await advance(page, 2 * MINUTE);

  // A reload restores the session.
  await page.reload();
  await expect(page.locator('[data-connection-state="authenticated"]')).toBeVisible();
  await advance(page, MINUTE);

  // To /security and back.
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page).toHaveURL(/\/security$/);
  await advance(page, 2 * MINUTE);
  await page.getByRole('link', { name: 'Back to chat' }).click();
  await advance(page, 2 * MINUTE);
  await say(page, bob.page, 'Still here after ten minutes');
  await page.getByRole('link', { name: 'Security' }).click();
  await advance(page, MINUTE);
  expect(fakeMs).toBeGreaterThanOrEqual(10 * MINUTE);

  // Nothing detected, by checks that did run (every 5 s since the reload), and no countermeasure sent.
  await expect(page.locator('[data-check="tamper"]')).toHaveAttribute('data-check-state', 'pass');
  const ran = Number((await page.locator('[data-check="tamper"]').textContent())?.match(/has run (\d+) checks/)?.[1]);
  expect(ran).toBeGreaterThanOrEqual((6 * MINUTE) / STEP_MS);
  await expect(page.getByRole('group', { name: 'This browser, since the page loaded' }).locator('[data-count="total"]')).toHaveText('0');
  await expect(page.getByText('Nothing detected in this browser since this page loaded.')).toBeVisible();
  await shot(page, '01-after-ten-minutes');
  expect(suspicious).toEqual([]);
});

test.describe('forced detections', () => {
  test.use({ tamperCountermeasures: 'expected' });

  test('login-screen detections escalate: decoys after 2 s and 4 s, then a wipe and the breach screen', async ({ network }) => {
    const context = await network.newContext();
    const requests = countermeasureRequests(context);
    const decoys = () => requests.filter((r) => r.path.startsWith('/api/decoy/'));
    await context.clock.install({ time: new Date('2025-06-01T12:00:00Z') });
    const page = await context.newPage();
    await page.goto('/login');
    await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
    // From here on time moves only when the test says.
    await page.clock.pauseAt(new Date('2025-06-01T12:01:00Z'));

    // What the browser holds before: storage, a cache, an identity and a contact's pin (the key
    // store as the app makes it: web/src/lib/enclave-db.ts).
    await page.evaluate(async () => {
      localStorage.setItem('enclave.user', '{}');
      sessionStorage.setItem('enclave.notice', '{}');
      await (await caches.open('enclave-test')).put('/probe', new Response('x'));
      const db = await new Promise<IDBDatabase>((resolve, reject) => {
        const open = indexedDB.open('enclave', 1);
        open.onupgradeneeded = () => {
          open.result.createObjectStore('identity');
          open.result.createObjectStore('contacts');
        };
        open.onsuccess = () => resolve(open.result);
        open.onerror = () => reject(open.error);
      });
      const tx = db.transaction(['identity', 'contacts'], 'readwrite');
      tx.objectStore('identity').put({ note: 'stand-in for a member identity' }, 'member');
      tx.objectStore('contacts').put({ contact: 'bob', fingerprint: '1'.repeat(60) }, 'member:bob');
      await new Promise((resolve) => (tx.oncomplete = resolve));
      db.close();
    });
    expect(await browserData(page)).toEqual({ local: 1, session: 1, caches: 1, records: { identity: 1, contacts: 1 } });

    const token = page.getByLabel('Access Token', { exact: true });
    const go = page.getByRole('button', { name: 'Decrypt & Access' });
    const noNewRequest = async (count: number) => {
      await realWait(300);
      expect(decoys()).toHaveLength(count);
    };

    // 1: a low-entropy token. Decoys 2 s later, not before: the three honeypots, without a body.
    await token.fill('0'.repeat(64));
    await go.click();
    await expectToast(page, 'Security Alert', 'Token format validation failed. Suspicious activity detected.');
    await page.clock.runFor(1_999);
    await noNewRequest(0);
    await page.clock.runFor(1);
    await expect.poll(() => decoys().length).toBe(3);
    expect(decoys()).toEqual(
      ['/api/decoy/auth', '/api/decoy/validate', '/api/decoy/decrypt'].map((path) => ({ method: 'POST', path, body: null })),
    );

    // 2: a token of the wrong format. Decoys 4 s later.
    await token.fill('0123456789ABCDEF'.repeat(4));
    await go.click();
    await expectToast(page, 'Security Alert');
    await page.clock.runFor(3_999);
    await noNewRequest(3);
    await page.clock.runFor(1);
    await expect.poll(() => decoys().length).toBe(6);

    // A script element from elsewhere is what extensions do: shown and recorded, not a strike.
    await addScriptElement(page, 'https://evil.example.net/payload.js');
    await tamperWarning(page).getByText('What was found (1)').click();
    await expect(tamperWarning(page).getByRole('listitem')).toHaveText(['Unauthorized script injection: https://evil.example.net']);
    await page.clock.runFor(10_000);
    await noNewRequest(6);
    await expect(breachHeading(page)).toBeHidden();

    // 3: a third forged token.
    await token.fill('f'.repeat(64));
    await go.click();
    await expect(breachHeading(page)).toBeVisible();
    // Wiped: storage, caches and the key store; the contacts' pins stay (docs/security.md §3).
    await expect
      .poll(() => browserData(page))
      .toEqual({ local: 0, session: 0, caches: 0, records: { identity: 0, contacts: 1, history: 0 } });
    await shot(page, '02-breach-screen');

    // The breach screen stays 3 s, then the browser goes to /.
    await page.clock.runFor(2_999);
    await realWait(300);
    await expect(page).toHaveURL(/\/login$/);
    await expect(breachHeading(page)).toBeVisible();
    await page.clock.runFor(1);
    await expect(page).toHaveURL(new URL('/', network.server.url).toString());
    await expect(breachHeading(page)).toBeHidden();
    await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
    // No more decoys, and the login side reports nothing to the server.
    expect(requests).toHaveLength(6);
  });

  test('a critical detection on the login screen wipes at once, with no decoys first', async ({ network }) => {
    const context = await network.newContext();
    const requests = countermeasureRequests(context);
    const page = await context.newPage();
    await page.goto('/');
    await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
    await page.evaluate(() => localStorage.setItem('enclave.user', '{}'));

    // Someone replaces WebCrypto's digest in the running page: critical, at the login screen's next native check (10 s).
    await page.evaluate(() => {
      const digest = crypto.subtle.digest.bind(crypto.subtle);
      Object.defineProperty(crypto.subtle, 'digest', {
        value: (algorithm: AlgorithmIdentifier, data: BufferSource) => digest(algorithm, data),
      });
    });
    await expect(breachHeading(page)).toBeVisible({ timeout: 15_000 });
    await expect.poll(async () => (await browserData(page)).local).toBe(0);
    // The login side reports nothing to the server, and sent no decoys before the wipe.
    expect(requests).toEqual([]);
  });

  test('a critical detection in the chat reports to the server once and shows the breach screen', async ({ network }) => {
    const alice = await network.join('alice');
    const page = alice.page;
    const reports = countermeasureRequests(alice.context);
    // The server's answer, read on its way (the page leaves for / soon after).
    const answers: unknown[] = [];
    await page.route('**/api/security/breach', async (route) => {
      const response = await route.fetch();
      answers.push(await response.json());
      await route.fulfill({ response });
    });

    // Someone replaces WebCrypto's digest in the running page: critical, at the monitor's next check (5 s).
    await page.evaluate(() => {
      const digest = crypto.subtle.digest.bind(crypto.subtle);
      Object.defineProperty(crypto.subtle, 'digest', {
        value: (algorithm: AlgorithmIdentifier, data: BufferSource) => digest(algorithm, data),
      });
    });
    await expect(breachHeading(page)).toBeVisible({ timeout: 8_000 });
    await shot(page, '03-breach-screen-in-chat');
    await expect.poll(() => answers).toEqual([{ policy: 'log', action: 'logged' }]);

    // Then /, with nothing left of Enclave in the browser.
    await expect(page).toHaveURL(new URL('/', network.server.url).toString());
    await expect(page.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
    const left = await browserData(page);
    expect(left.records.identity ?? 0).toBe(0);
    expect(left.local).toBe(0);

    // One report: what was found, no addresses.
    expect(reports.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /api/security/breach']);
    const report = breachReportSchema.parse(JSON.parse(reports[0]!.body!));
    expect(report.reason).toBe('Crypto API compromised: crypto.subtle.digest was replaced while the page ran');
    expect(report.threatVectors).toEqual([
      expect.objectContaining({ type: 'crypto_api_compromised', severity: 'critical', source: 'security_monitor' }),
    ]);
    expect(report.addresses).toBeUndefined();
    // The server recorded it against alice.
    const live = liveEventsResponseSchema.parse(await (await network.creatorApi.get('/api/security/live-events')).json());
    const recorded = live.events.filter((e) => e.type === 'breach_report');
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ severity: 'critical', username: 'alice' });
  });
});
