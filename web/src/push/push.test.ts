/** This browser's push subscription: made with the network's key, handed over, undone when either side refuses. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { base64UrlToBytes, disablePush, enablePush, isSubscribed, pushTexts, unsubscribeLocally, type PushHost } from './push';

const KEY = `B${'A'.repeat(86)}`;
const ENDPOINT = 'https://fcm.googleapis.com/fcm/send/abc';
const KEYS = { p256dh: `B${'Q'.repeat(86)}`, auth: 'A'.repeat(22) };

/** A browser's push manager holding at most one subscription; `refuse` makes subscribe() fail with that DOMException. */
function fakeHost(refuse?: string) {
  let current: (PushSubscription & { ended: boolean }) | null = null;
  const made: { applicationServerKey: Uint8Array; userVisibleOnly: boolean }[] = [];
  const subscription = () => {
    const s = {
      endpoint: ENDPOINT,
      ended: false,
      toJSON: () => ({ endpoint: ENDPOINT, keys: KEYS }),
      unsubscribe: async () => {
        s.ended = true;
        if (current === (s as unknown)) current = null;
        return true;
      },
    };
    return s as unknown as PushSubscription & { ended: boolean };
  };
  const pushManager = {
    getSubscription: async () => current,
    subscribe: async (options: { applicationServerKey: Uint8Array; userVisibleOnly: boolean }) => {
      if (refuse) throw new DOMException('refused', refuse);
      made.push(options);
      return (current = subscription());
    },
  } as unknown as PushManager;
  const host: PushHost = { supported: true, registration: async () => ({ pushManager }) };
  return { host, made, current: () => current };
}

/** The server: the key, and the subscribe/unsubscribe answers (`refuse`: a 400 for subscribe). */
function fakeServer(refuse = false) {
  const posted: { url: string; body: unknown }[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      if (url === '/api/push/key') return Response.json({ publicKey: KEY });
      posted.push({ url, body: JSON.parse(String(init.body)) });
      if (refuse) return Response.json({ error: 'endpoint is not a known push service', code: 'invalid_request' }, { status: 400 });
      return Response.json({ ok: true });
    }),
  );
  return posted;
}

afterEach(() => vi.unstubAllGlobals());

describe('push subscription', () => {
  it('subscribes with the network key, user-visible only, and hands the subscription to the server', async () => {
    const posted = fakeServer();
    const browser = fakeHost();
    await enablePush(browser.host);
    expect(browser.made).toEqual([{ userVisibleOnly: true, applicationServerKey: base64UrlToBytes(KEY) }]);
    expect(base64UrlToBytes(KEY)).toHaveLength(65);
    expect(posted).toEqual([{ url: '/api/push/subscribe', body: { endpoint: ENDPOINT, keys: KEYS } }]);
    expect(await isSubscribed(browser.host)).toBe(true);

    await disablePush(browser.host);
    expect(posted.at(-1)).toEqual({ url: '/api/push/unsubscribe', body: { endpoint: ENDPOINT } });
    expect(await isSubscribed(browser.host)).toBe(false);
  });

  it('says so when the browser refuses permission or cannot reach its push service, and posts nothing', async () => {
    const posted = fakeServer();
    await expect(enablePush(fakeHost('NotAllowedError').host)).rejects.toThrow(pushTexts.denied);
    await expect(enablePush(fakeHost('AbortError').host)).rejects.toThrow(pushTexts.unreachable);
    await expect(enablePush({ supported: true, registration: async () => undefined })).rejects.toThrow(pushTexts.noWorker);
    expect(posted).toEqual([]);
  });

  it('ends the browser subscription when the server refuses it', async () => {
    fakeServer(true);
    const browser = fakeHost();
    await expect(enablePush(browser.host)).rejects.toThrow(/not a known push service/);
    expect(await isSubscribed(browser.host)).toBe(false);
  });

  it('ends the browser subscription at sign-out without calling the server', async () => {
    const posted = fakeServer();
    const browser = fakeHost();
    await enablePush(browser.host);
    const held = browser.current()!;
    await unsubscribeLocally(browser.host);
    expect(held.ended).toBe(true);
    expect(posted).toHaveLength(1);
  });
});
