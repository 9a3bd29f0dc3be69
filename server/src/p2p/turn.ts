/**
 * Short-lived TURN credentials in coturn's "TURN REST API" form (`use-auth-secret` with
 * `static-auth-secret`): the username is `<expiry in unix seconds>:<member id>` and the password
 * base64(HMAC-SHA1(secret, username)). The TURN server recomputes the password from the secret it
 * shares with us, so nothing is stored, a credential names the member it was minted for, and one
 * copied out of a browser stops working at its expiry.
 */
import { createHmac } from 'node:crypto';
import type { P2pConfigResponse } from '@enclave/protocol';
import type { Config } from '../config';

/** Long enough for a room's evening, short enough that a leaked credential soon dies. */
export const TURN_CREDENTIAL_TTL_S = 12 * 60 * 60;

/** The credential coturn accepts for `memberId` until `expiresAtS` (unix seconds). */
export function turnCredential(secret: string, memberId: string, expiresAtS: number): { username: string; credential: string } {
  const username = `${expiresAtS}:${memberId}`;
  return { username, credential: createHmac('sha1', secret).update(username).digest('base64') };
}

/** The ICE servers handed to `memberId`: TURN URLs with a fresh credential when a secret is set. */
export function iceServersFor(config: Pick<Config, 'iceServers' | 'turnSecret'>, memberId: string, nowMs: number): P2pConfigResponse {
  const { turnSecret } = config;
  if (!turnSecret) return { iceServers: config.iceServers.map((urls) => ({ urls })), expiresAt: null };
  const expiresAtS = Math.floor(nowMs / 1000) + TURN_CREDENTIAL_TTL_S;
  const credential = turnCredential(turnSecret, memberId, expiresAtS);
  return {
    iceServers: config.iceServers.map((urls) => (/^turns?:/.test(urls) ? { urls, ...credential } : { urls })),
    expiresAt: new Date(expiresAtS * 1000).toISOString(),
  };
}
