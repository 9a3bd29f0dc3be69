/**
 * A member signed in on two devices signs one of them out from the other ("Sessions", docs/security.md §6):
 * /security lists both devices with when each was first seen and last active; "Sign out" on the
 * other one asks first, then that browser's socket closes and it is back at sign-in (the time it
 * took is logged: well under a second on a quiet machine), while this one stays signed in.
 */
import { SOCKET_PATH, sessionsResponseSchema } from '@enclave/protocol';
import { expect, test } from './support/network';
import { storyShots } from './support/shots';
import { expectToast } from './support/toasts';

const shot = storyShots('device-sessions');

/** Device B: another browser on another system, as its User-Agent says. */
const EDGE_ON_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';

test('a member signs out their other device from /security; its socket closes and it is sent to sign-in at once', async ({ network }) => {
  const alice = await network.join('alice');
  const page = alice.page;

  // Device B. The app's own socket cannot be watched to its end: on the frame B wipes its keys
  // and leaves for /, and the document can go before the server's close reaches it (and
  // Playwright's close event with it). So B's session also holds a watcher: a second tab, parked
  // on a page that runs no app and never navigates, with a socket of its own.
  const contextB = await network.newContext({ userAgent: EDGE_ON_WINDOWS });
  const other = await contextB.newPage();
  await network.signIn(other, alice.token);
  await expect(other).toHaveURL(/\/chat$/);
  await expect(other.locator('[data-connection-state="authenticated"]')).toBeVisible();
  const { sessions: seenByB } = sessionsResponseSchema.parse(await (await other.request.get('/api/auth/sessions')).json());
  const deviceB = seenByB.find((s) => s.current)!;

  // Device A's /security lists both: this one marked, B named from its User-Agent.
  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page).toHaveURL(/\/security$/);
  const devices = page.getByRole('list', { name: 'Signed-in devices' }).getByRole('listitem');
  await expect(devices).toHaveCount(2);
  const thisOne = devices.filter({ hasText: 'This device' });
  await expect(thisOne).toHaveCount(1);
  await expect(thisOne).toContainText('Active now');
  await expect(thisOne.getByRole('button', { name: /^Sign out/ })).toHaveCount(0);
  const rowB = page.locator(`[data-session="${deviceB.id}"]`);
  await expect(rowB).toContainText('Edge 131 on Windows');
  await expect(rowB).toContainText(/First seen .+ · last active (now|\d+ seconds? ago)/);
  await expect(page.getByRole('button', { name: 'Sign out all other devices' })).toBeEnabled();
  await shot(page, '01-two-devices');
  // On a phone the list fits the screen: no sideways scroll.
  const desktop = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await shot(page, '01-two-devices-390');
  await page.setViewportSize(desktop);

  // "Sign out" asks first.
  await rowB.getByRole('button', { name: 'Sign out Edge 131 on Windows' }).click();
  const dialog = page.getByRole('dialog', { name: 'Sign out Edge 131 on Windows?' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Signing in there again takes your access token.');
  await shot(page, '02-confirm-sign-out');

  const watcher = await contextB.newPage();
  await watcher.goto('/api/health');
  await watcher.evaluate(async (path) => {
    const state = { endedAt: null as number | null, closedAt: null as number | null, code: null as number | null };
    (window as unknown as { socketOfB: typeof state }).socketOfB = state;
    const ws = new WebSocket(new URL(path, location.href.replace(/^http/, 'ws')));
    ws.addEventListener('message', (e) => {
      if (String(e.data).includes('"session_ended"')) state.endedAt ??= performance.timeOrigin + performance.now();
    });
    ws.addEventListener('close', (e) => {
      state.closedAt = performance.timeOrigin + performance.now();
      state.code = e.code;
    });
    await new Promise<void>((resolve, reject) => {
      ws.addEventListener('open', () => ws.send(JSON.stringify({ type: 'authenticate' })));
      ws.addEventListener('message', (e) => (String(e.data).includes('"authenticated"') ? resolve() : undefined));
      ws.addEventListener('close', () => reject(new Error('the watcher socket closed before it was authenticated')));
    });
  }, SOCKET_PATH);
  const watched = () =>
    watcher.evaluate(
      () => (window as unknown as { socketOfB: { endedAt: number | null; closedAt: number | null; code: number | null } }).socketOfB,
    );

  const t0 = Date.now();
  await dialog.getByRole('button', { name: 'Sign Out' }).click();
  // Waits for what must happen; how fast it happens is the figure logged below, not an assertion.
  await expect.poll(async () => (await watched()).closedAt, { timeout: 15_000 }).not.toBeNull();
  await expect(other).toHaveURL(new URL('/', network.server.url).toString(), { timeout: 15_000 });
  await expect(other.getByRole('button', { name: 'Decrypt & Access' })).toBeVisible();
  const signInMs = Date.now() - t0;
  const socketOfB = await watched();
  const endedMs = socketOfB.endedAt === null ? null : Math.round(socketOfB.endedAt - t0);
  console.log(
    `device B after "Sign Out" was clicked: session_ended in ${endedMs} ms, its socket closed (code ${socketOfB.code}) in ${Math.round(socketOfB.closedAt! - t0)} ms, sign-in screen in ${signInMs} ms`,
  );
  expect(endedMs, 'B was told its session ended').not.toBeNull();
  // 4002: closed by the server for a session that ended (docs/security.md §6).
  expect(socketOfB.code).toBe(4002);
  expect((await other.request.get('/api/auth/me')).status()).toBe(401);

  // A stays signed in, now its only device.
  await expectToast(page, 'Device Signed Out', 'Edge 131 on Windows is signed out.');
  await expect(dialog).toBeHidden();
  await expect(devices).toHaveCount(1);
  await expect(page.getByText('This is the only device signed in to your account.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Sign out all other devices' })).toBeDisabled();
  expect((await page.request.get('/api/auth/me')).status()).toBe(200);
  await shot(page, '03-one-device-left');
});
