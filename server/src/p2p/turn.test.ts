/**
 * Members' TURN credentials as coturn checks them (use-auth-secret): the password is
 * base64(HMAC-SHA1(secret, username)), recomputed here with WebCrypto rather than the code's own
 * node:crypto, and the username carries the expiry and the member.
 */
import { describe, expect, it } from 'vitest';
import { iceServersFor, TURN_CREDENTIAL_TTL_S, turnCredential } from './turn';

const secret = 'north-wind-shared-secret';
const memberId = '0b5f5a2e-3c41-4c7e-9a51-2f8d5a6b7c90';
const urls = ['stun:turn.example.org:3478', 'turn:turn.example.org:3478?transport=udp', 'turns:turn.example.org:5349'];

async function coturnPassword(username: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-1' }, false, ['sign']);
  return Buffer.from(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(username))).toString('base64');
}

describe('TURN credentials', () => {
  it('are what coturn computes from the shared secret', async () => {
    const { username, credential } = turnCredential(secret, memberId, 1_900_000_000);
    expect(username).toBe(`1900000000:${memberId}`);
    expect(credential).toBe(await coturnPassword(username));
  });

  it('go with the TURN URLs only, and end TURN_CREDENTIAL_TTL_S after they are handed out', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0);
    const answer = iceServersFor({ iceServers: urls, turnSecret: secret }, memberId, now);
    const expiresAtS = now / 1000 + TURN_CREDENTIAL_TTL_S;
    expect(answer.expiresAt).toBe(new Date(expiresAtS * 1000).toISOString());
    expect(answer.iceServers[0]).toEqual({ urls: urls[0] });
    for (const server of answer.iceServers.slice(1)) {
      expect(server).toEqual({ urls: server.urls, ...turnCredential(secret, memberId, expiresAtS) });
    }
  });

  it('are not handed out without a secret: URLs only', () => {
    expect(iceServersFor({ iceServers: urls }, memberId, Date.now())).toEqual({
      iceServers: urls.map((u) => ({ urls: u })),
      expiresAt: null,
    });
  });
});
