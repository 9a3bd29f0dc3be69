/**
 * This browser's Web Push subscription (docs/architecture.md, "Web Push"): made with the network's
 * VAPID key and handed to the server, which then pushes a bare "new message" while the member has
 * Enclave closed; the service worker shows it. Per browser: the subscription is the browser's, and
 * ends with the session (the server deletes it at logout; {@link unsubscribeLocally} here).
 */
import { fetchPushKey, postPushSubscription, postPushUnsubscribe } from '../net/push-api';

/** What the switch needs of the browser: its service worker registration (a test passes a fake). */
export type PushHost = {
  /** Whether this browser has a push service at all (PushManager). */
  supported: boolean;
  registration: () => Promise<Pick<ServiceWorkerRegistration, 'pushManager'> | undefined>;
};

/** The real browser's. */
export const browserPushHost: PushHost = {
  supported: typeof window !== 'undefined' && 'PushManager' in window && typeof navigator !== 'undefined' && 'serviceWorker' in navigator,
  registration: async () => (await navigator.serviceWorker?.getRegistration()) ?? undefined,
};

/** Why turning push on failed, in words for the member. */
export class PushRefused extends Error {}

export const pushTexts = {
  noWorker: 'This page has no service worker yet (it is installed on the first visit of a release build). Reload, then try again.',
  denied: 'The browser refused notifications for this site. Allow them in its site settings, then try again.',
  unreachable: 'This browser could not reach its push service, so Enclave cannot notify you while it is closed.',
  incomplete: 'The browser gave a subscription without its keys; push cannot be used in this browser.',
} as const;

/** base64url (unpadded) → bytes, as `applicationServerKey` takes them. */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Whether this browser holds a push subscription now. */
export async function isSubscribed(host: PushHost = browserPushHost): Promise<boolean> {
  if (!host.supported) return false;
  const registration = await host.registration();
  return (await registration?.pushManager.getSubscription()) != null;
}

/**
 * Subscribes this browser (asking for notification permission) and hands the subscription to the
 * server; a refusal of either leaves nothing subscribed. Throws {@link PushRefused} with the
 * reason, or the server's ApiError.
 */
export async function enablePush(host: PushHost = browserPushHost): Promise<void> {
  const registration = await host.registration();
  if (!registration) throw new PushRefused(pushTexts.noWorker);
  const key = base64UrlToBytes(await fetchPushKey());
  // A subscription made with another key (another network on this origin, an old one) is refused by
  // subscribe(): end it first.
  await (await registration.pushManager.getSubscription())?.unsubscribe();
  let subscription: PushSubscription;
  try {
    subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  } catch (error) {
    const denied = error instanceof DOMException && error.name === 'NotAllowedError';
    throw new PushRefused(denied ? pushTexts.denied : pushTexts.unreachable);
  }
  const { endpoint, keys } = subscription.toJSON();
  try {
    if (!endpoint || !keys?.p256dh || !keys.auth) throw new PushRefused(pushTexts.incomplete);
    await postPushSubscription({ endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } });
  } catch (error) {
    await subscription.unsubscribe().catch(() => undefined);
    throw error;
  }
}

/** Ends this browser's subscription, here and on the server. */
export async function disablePush(host: PushHost = browserPushHost): Promise<void> {
  const subscription = await (await host.registration())?.pushManager.getSubscription();
  if (!subscription) return;
  // The server's copy first: if it is unreachable, the browser's stays and the switch stays on.
  await postPushUnsubscribe(subscription.endpoint);
  await subscription.unsubscribe();
}

/** At sign-out: the browser's subscription ends too (the server ended its copy with the session). */
export async function unsubscribeLocally(host: PushHost = browserPushHost): Promise<void> {
  if (!host.supported) return;
  try {
    await (await (await host.registration())?.pushManager.getSubscription())?.unsubscribe();
  } catch {
    // Nothing to end, or the browser would not: the server no longer pushes to it anyway.
  }
}
