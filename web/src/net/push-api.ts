/** Web Push (docs/security.md, "Web Push"): the network's VAPID key, and this browser's subscription kept or forgotten. */
import { routes, type PushSubscribeRequest } from '@enclave/protocol';
import { call } from './http';

/** The VAPID public key, base64url: the browser's `applicationServerKey`. */
export async function fetchPushKey(): Promise<string> {
  return (await call(routes.pushKey, {})).publicKey;
}

/** Hands the server this browser's subscription, for this session. */
export async function postPushSubscription(subscription: PushSubscribeRequest): Promise<void> {
  await call(routes.pushSubscribe, { body: subscription });
}

/** Tells the server to forget this browser's subscription. */
export async function postPushUnsubscribe(endpoint: string): Promise<void> {
  await call(routes.pushUnsubscribe, { body: { endpoint } });
}
