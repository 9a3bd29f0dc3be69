/**
 * The strictest breach policy end to end: on a server with BREACH_POLICY=wipe, a critical tamper
 * detection in a member's browser reports to the server, which wipes the account; the socket says
 * so with `security_breach`, the browser shows the specification's alert and returns to /, and the
 * token no longer opens anything: 'Account Compromised'.
 */
import { errorTexts } from '@enclave/protocol';
import { browserData } from './support/browser-data';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('breach-policy-wipe');

test.use({ serverEnv: { BREACH_POLICY: 'wipe' }, tamperCountermeasures: 'expected' });

test('a critical detection under the wipe policy wipes the account and the browser', async ({ network }) => {
  const alice = await network.join('alice');
  const page = alice.page;
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.accept();
  });
  // The report is held until the breach screen has been seen: the server's answer (and its frame,
  // which ends the page) come only after.
  const answers: unknown[] = [];
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/security/breach', async (route) => {
    await released;
    const response = await route.fetch();
    answers.push(await response.json());
    await route.fulfill({ response });
  });

  // WebCrypto replaced in the running chat: the monitor's next check calls it critical.
  await page.evaluate(() => {
    const getRandomValues = crypto.getRandomValues.bind(crypto);
    Object.defineProperty(crypto, 'getRandomValues', { value: (array: Uint8Array) => getRandomValues(array) });
  });
  await expect(page.getByRole('heading', { name: 'SECURITY BREACH DETECTED' })).toBeVisible({ timeout: 8_000 });
  await shot(page, '01-breach-screen');
  release();
  await expect.poll(() => answers).toEqual([{ policy: 'wipe', action: 'wiped' }]);

  // The server's frame: the alert, a wipe, and /.
  await expect.poll(() => alerts).toEqual(['SECURITY BREACH: Your account has been compromised. All data wiped for protection.']);
  await expect(page).toHaveURL(new URL('/', network.server.url).toString());
  const left = await browserData(page);
  expect({ local: left.local, session: left.session, identity: left.records.identity ?? 0 }).toEqual({ local: 0, session: 0, identity: 0 });
  expect((await page.request.get('/api/auth/me')).status()).toBe(401);

  // The account itself is gone.
  await network.signIn(page, alice.token);
  await expectToast(page, 'Account Compromised', errorTexts.wiped);
  await expect(page).toHaveURL(new URL('/', network.server.url).toString());
  await shot(page, '02-account-compromised', { toasts: true });
});
