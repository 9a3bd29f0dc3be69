/**
 * Web Push (RFC 8030, with VAPID, RFC 8292, and aes128gcm payloads, RFC 8291): a member's browser
 * subscribes with the network's VAPID public key and hands the server its subscription; the
 * server then tells that browser "there is a new message" while the member has no socket open.
 * The push carries nothing about the message (docs/security.md, "Web Push").
 */
import { z } from 'zod';

/** A subscription endpoint is at most this long (browsers' are a few hundred characters). */
export const PUSH_ENDPOINT_MAX_CHARS = 1_000;
/** Subscriptions one member keeps; a new one past this drops their oldest. */
export const PUSH_SUBSCRIPTIONS_PER_MEMBER = 10;

/** Unpadded base64url of exactly `bytes` bytes, with a message naming the field's meaning. */
const base64UrlBytes = (bytes: number, what: string) =>
  z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, `must be ${what} in unpadded base64url`)
    .refine((s) => s.length === Math.ceil((bytes * 4) / 3), `must be ${what}: ${bytes} bytes`);

/**
 * The push service URL the browser was given (`PushSubscription.endpoint`): https only; which
 * hosts the server accepts is its own rule (known push services, and PUSH_ENDPOINT_ALLOW).
 */
export const pushEndpointSchema = z
  .string()
  .max(PUSH_ENDPOINT_MAX_CHARS, `must be at most ${PUSH_ENDPOINT_MAX_CHARS} characters`)
  .refine((s) => {
    try {
      const url = new URL(s);
      return url.protocol === 'https:' && !url.username && !url.password && !url.hash;
    } catch {
      return false;
    }
  }, 'must be an https URL');

/** `POST /api/push/subscribe`: `PushSubscription.toJSON()` without its expiration time. */
export const pushSubscribeRequestSchema = z.strictObject({
  endpoint: pushEndpointSchema,
  keys: z.strictObject({
    /** The browser's ECDH P-256 public key, uncompressed (0x04, x, y). */
    p256dh: base64UrlBytes(65, 'an uncompressed P-256 public key').refine(
      // 0x04 is the first six bits 000001: 'B'.
      (s) => s.startsWith('B'),
      'must be an uncompressed P-256 public key (starting with 0x04)',
    ),
    /** The authentication secret of RFC 8291. */
    auth: base64UrlBytes(16, 'the authentication secret'),
  }),
});
/** What a browser hands over to receive pushes. */
export type PushSubscribeRequest = z.infer<typeof pushSubscribeRequestSchema>;

/** `POST /api/push/unsubscribe`: the endpoint to forget (the caller's own only). */
export const pushUnsubscribeRequestSchema = z.strictObject({ endpoint: pushEndpointSchema });

/** `GET /api/push/key`: the network's VAPID public key, base64url (the browser's `applicationServerKey`). */
export const pushKeyResponseSchema = z.object({ publicKey: z.string() });
/** The answer of `GET /api/push/key`. */
export type PushKeyResponse = z.infer<typeof pushKeyResponseSchema>;

/** The only payload a push ever carries: no sender, conversation, message or text. */
export const PUSH_PAYLOAD = JSON.stringify({ type: 'new_message' });
