/** The table's rows for Web Push (server/src/push/routes.ts): signed out, malformed subscriptions, and endpoints not allowed. */
import { bodyBasics, signedOut, type Row } from './table';

/** A subscription as a browser hands it over: a known push service, a 65-byte P-256 point, 16 bytes. */
const subscription = {
  endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
  keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
};

const subscribeRow = (name: string, body: unknown, expectMessage: RegExp): Row => ({
  name: `POST /api/push/subscribe — ${name}`,
  method: 'POST',
  path: '/api/push/subscribe',
  body,
  expectStatus: 400,
  expectMessage,
});

export const pushRows: Row[] = [
  ...signedOut('GET', '/api/push/key'),
  ...signedOut('POST', '/api/push/subscribe', subscription),
  ...signedOut('POST', '/api/push/unsubscribe', { endpoint: subscription.endpoint }),

  ...bodyBasics('POST /api/push/subscribe', 'member'),
  subscribeRow(
    'an http endpoint',
    { ...subscription, endpoint: 'http://fcm.googleapis.com/fcm/send/abc' },
    /endpoint: must be an https URL/,
  ),
  subscribeRow('an endpoint that is no URL', { ...subscription, endpoint: 'fcm' }, /endpoint: must be an https URL/),
  subscribeRow(
    'an endpoint over 1,000 characters',
    { ...subscription, endpoint: `${subscription.endpoint}${'a'.repeat(1_000)}` },
    /endpoint: /,
  ),
  subscribeRow('an address inside the network', { ...subscription, endpoint: 'https://127.0.0.1/push' }, /not a known push service/),
  subscribeRow('a look-alike host', { ...subscription, endpoint: 'https://fcm.googleapis.com.evil.example/x' }, /not a known push service/),
  subscribeRow('a p256dh off the curve', subscription, /keys\.p256dh: must be a point on P-256/),
  subscribeRow('a p256dh of 64 bytes', { ...subscription, keys: { ...subscription.keys, p256dh: 'B'.repeat(86) } }, /keys\.p256dh: /),
  subscribeRow('a compressed p256dh', { ...subscription, keys: { ...subscription.keys, p256dh: `A${'A'.repeat(86)}` } }, /keys\.p256dh: /),
  subscribeRow('an auth of 17 bytes', { ...subscription, keys: { ...subscription.keys, auth: 'A'.repeat(23) } }, /keys\.auth: /),
  subscribeRow(
    'an auth in padded base64',
    { ...subscription, keys: { ...subscription.keys, auth: `${'A'.repeat(22)}==` } },
    /keys\.auth: /,
  ),
  subscribeRow('no keys', { endpoint: subscription.endpoint }, /keys: /),
  subscribeRow('an extra field', { ...subscription, expirationTime: null }, /Unrecognized key.*"expirationTime"/),

  ...bodyBasics('POST /api/push/unsubscribe', 'member'),
  {
    name: 'POST /api/push/unsubscribe — an endpoint that is no URL',
    method: 'POST',
    path: '/api/push/unsubscribe',
    body: { endpoint: 'x' },
    expectStatus: 400,
    expectMessage: /endpoint: must be an https URL/,
  },
];
