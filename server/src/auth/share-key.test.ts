/**
 * Members' share keys (packages/crypto/src/channel-keys.ts): published at registration or, for an
 * account made before them, at sign-in; checked by the server (a full-order X25519 key, signed by
 * the member's own signing key), set once, and listed with the members a channel key is wrapped for.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createAccount, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { routes, type ShareKey } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** A real X25519 key the member never signed. */
const unsignedKey = () => generateKeyPairSync('x25519').publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');

/** Another X25519 key, signed by the member as their own would be: valid, but not the one derived from their keys. */
async function anotherSignedKey(member: TestMember) {
  const sharePublicKey = unsignedKey();
  const bytes = new TextEncoder().encode(JSON.stringify(['enclave/share-key/v1', sharePublicKey]));
  const signature = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, member.identity.signKey, bytes);
  return { sharePublicKey, signature: Buffer.from(signature).toString('base64') };
}

describe.each(backends)('share keys (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });

  const storedKey = async (id: string) =>
    (
      await suite.database.db
        .select({ sharePublicKey: users.sharePublicKey, shareKeySignature: users.shareKeySignature })
        .from(users)
        .where(eq(users.id, id))
    )[0];

  it('stores the share key registration brings and lists it with the members; refuses a bad one with the invite key unspent', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const token = generateAccessToken();
    const account = await createAccount(token);
    const anon = new TestMember.Anonymous(suite.server.url);
    const loginKey = await deriveLoginKey(token);
    const body = (shareKey: ShareKey) => ({
      inviteKey: key!,
      username: 'sharer',
      loginKey,
      ...account.publicIdentity,
      encryptedPrivateKey: account.encryptedPrivateKey,
      shareKey,
    });
    const own = { sharePublicKey: account.share.sharePublicKey, signature: account.share.signature };
    const refusals: [string, ShareKey, RegExp][] = [
      ['a low-order point', { ...own, sharePublicKey: Buffer.alloc(32).toString('base64') }, /^sharePublicKey: /],
      ['a key the member did not sign', { ...own, sharePublicKey: unsignedKey() }, /^signature: /],
    ];
    for (const [name, shareKey, reason] of refusals) {
      const res = await anon.attempt(routes.register, { body: body(shareKey) });
      expect(res.status, name).toBe(400);
      expect(res.error?.error, name).toMatch(reason);
    }
    const res = await anon.attempt(routes.register, { body: body(own) });
    expect(res.status).toBe(201);
    const id = res.body!.user.id;
    expect(await storedKey(id)).toEqual({ sharePublicKey: own.sharePublicKey, shareKeySignature: own.signature });

    const [other] = await mintKeys(suite.database.db, { count: 1 });
    const reader = await TestMember.join(suite.server.url, other!, 'reader', [], { withoutShareKey: true });
    const members = await reader.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    expect(members.members.find((m) => m.id === id)?.shareKey).toEqual(own);
    // The reader registered without one, as accounts from before share keys did: listed without.
    expect(members.members.find((m) => m.id === reader.id)).not.toHaveProperty('shareKey');
  });

  it('takes the share key of an account without one once, the same again as a no-op, and refuses any other', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const member = await TestMember.join(suite.server.url, key!, 'latecomer', [], { withoutShareKey: true });
    expect(await storedKey(member.id)).toEqual({ sharePublicKey: null, shareKeySignature: null });
    const { sharePublicKey, signature } = member.identity.share;

    const unsigned = await member.attempt(routes.publishShareKey, { body: { sharePublicKey: unsignedKey(), signature } });
    expect(unsigned.status).toBe(400);
    expect(unsigned.error?.error).toMatch(/^signature: /);
    expect(await storedKey(member.id)).toEqual({ sharePublicKey: null, shareKeySignature: null });

    expect((await member.attempt(routes.publishShareKey, { body: { sharePublicKey, signature } })).status).toBe(200);
    expect(await storedKey(member.id)).toEqual({ sharePublicKey, shareKeySignature: signature });
    expect((await member.attempt(routes.publishShareKey, { body: { sharePublicKey, signature } })).status).toBe(200);

    const another = await member.attempt(routes.publishShareKey, { body: await anotherSignedKey(member) });
    expect(another.status).toBe(409);
    expect(another.error?.code).toBe('conflict');
    expect(await storedKey(member.id)).toEqual({ sharePublicKey, shareKeySignature: signature });
  });

  it('refuses a share key from someone not signed in', async () => {
    const anon = new TestMember.Anonymous(suite.server.url);
    const res = await anon.attempt(routes.publishShareKey, {
      body: { sharePublicKey: unsignedKey(), signature: Buffer.alloc(64).toString('base64') },
    });
    expect(res.status).toBe(401);
  });
});
