/**
 * Members' public keys (docs/security.md §3, §4): registration accepts only the keys every client
 * can wrap for and verify with, and a member whose stored key is unusable (an account from before
 * that check) is left out of channel epochs instead of stopping everyone else from sending.
 */
import { createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createAccount, createEpoch, deriveLoginKey, generateAccessToken } from '@enclave/crypto';
import { routes } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { mintKeys } from '../keys/service';
import { backends, relaxedRateLimits } from '../testing/harness';
import { TestMember } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

const b64 = (der: Buffer) => der.toString('base64');

/** SPKI of an RSA public key with a made-up modulus of `bits` bits (a public key is never checked for primality). */
function rsaSpki(bits: number, exponent = 65537): string {
  const n = randomBytes(bits / 8);
  n[0]! |= 0x80;
  n[n.length - 1]! |= 1;
  const e = Buffer.from(exponent.toString(16).padStart(exponent > 0xffff ? 6 : 2, '0'), 'hex');
  const jwk = { kty: 'RSA', n: n.toString('base64url'), e: e.toString('base64url') };
  return b64(createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'der' }));
}

function ecSpki(namedCurve: string): string {
  return b64(generateKeyPairSync('ec', { namedCurve }).publicKey.export({ type: 'spki', format: 'der' }));
}

/** A P-256 key in compressed-point SPKI: the same key, but not the form WebCrypto exports. */
function compressedP256Spki(): string {
  const jwk = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).publicKey.export({ format: 'jwk' });
  const x = Buffer.from(jwk.x!, 'base64url');
  const y = Buffer.from(jwk.y!, 'base64url');
  const prefix = Buffer.from('3039301306072a8648ce3d020106082a8648ce3d030107032200', 'hex');
  return b64(Buffer.concat([prefix, Buffer.from([2 + (y[y.length - 1]! & 1)]), x]));
}

describe.each(backends)('public keys at registration (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });

  it('refuses keys other than RSA-2048 (e = 65537) and P-256 with a 400 naming the field, leaving the invite key unused', async () => {
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    const account = await createAccount(generateAccessToken());
    const anon = new TestMember.Anonymous(suite.server.url);
    const cases: [string, 'encryptionPublicKey' | 'signingPublicKey', string][] = [
      ['an RSA-4096 encryption key', 'encryptionPublicKey', rsaSpki(4096)],
      ['an RSA-1024 encryption key', 'encryptionPublicKey', rsaSpki(1024)],
      ['an RSA-2048 encryption key with e = 3', 'encryptionPublicKey', rsaSpki(2048, 3)],
      ['random bytes as encryption key', 'encryptionPublicKey', b64(randomBytes(294))],
      ['an EC key as encryption key', 'encryptionPublicKey', ecSpki('prime256v1')],
      ['a P-384 signing key', 'signingPublicKey', ecSpki('secp384r1')],
      ['an RSA key as signing key', 'signingPublicKey', rsaSpki(2048)],
      ['random bytes as signing key', 'signingPublicKey', b64(randomBytes(91))],
      ['a P-256 signing key in compressed form', 'signingPublicKey', compressedP256Spki()],
    ];
    for (const [name, field, value] of cases) {
      const res = await anon.attempt(routes.register, {
        body: {
          inviteKey: key!,
          username: 'keytester',
          loginKey: await deriveLoginKey(generateAccessToken()),
          ...account.publicIdentity,
          [field]: value,
          encryptedPrivateKey: account.encryptedPrivateKey,
        },
      });
      expect(res.status, name).toBe(400);
      expect(res.error?.code, name).toBe('invalid_request');
      expect(res.error?.error, name).toMatch(new RegExp(`^${field}: `));
    }
    expect(await suite.database.db.select().from(users).where(eq(users.username, 'keytester'))).toEqual([]);
    // The key was not spent by the refusals: real keys register with it.
    const member = await TestMember.join(suite.server.url, key!, 'keytester');
    expect(member.user.username).toBe('keytester');
  });
});

describe.each(backends)('members with unusable stored keys (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let mallory: TestMember;
  let trudy: TestMember;
  /** A session from before share keys: it wraps the channel's epochs for every member itself. */
  let carl: TestMember;

  beforeAll(async () => {
    [alice, bob, mallory, trudy] = await suite.members('alice', 'bob', 'mallory', 'trudy');
    const [key] = await mintKeys(suite.database.db, { count: 1 });
    carl = await TestMember.join(suite.server.url, key!, 'carl', [], { withoutShareKey: true });
    // Their rows as accounts registered before the key check, and before share keys, could have left them.
    await suite.database.db
      .update(users)
      .set({ encryptionPublicKey: b64(randomBytes(294)), sharePublicKey: null, shareKeySignature: null })
      .where(eq(users.id, mallory.id));
    await suite.database.db
      .update(users)
      .set({ encryptionPublicKey: rsaSpki(4096), sharePublicKey: null, shareKeySignature: null })
      .where(eq(users.id, trudy.id));
  });

  it('get no share key, so the channel key is not wrapped for them and stops no one', async () => {
    const { sharePublicKey, signature } = mallory.identity.share;
    const refused = await mallory.attempt(routes.publishShareKey, { body: { sharePublicKey, signature } });
    expect(refused.status).toBe(400);
    expect(refused.error?.error).toMatch(/^encryptionPublicKey: /);

    const sent = await alice.send('all', 'hello despite mallory and trudy');
    expect(sent.status).toBe(201);
    expect(alice.client.skipped.of('general')).toEqual([]);
    const [read] = await bob.decrypt([sent.body!.message]);
    expect(read?.text).toBe('hello despite mallory and trudy');
    const { members } = await alice.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    for (const unusable of [mallory, trudy]) expect(members.find((m) => m.id === unusable.id)?.shareKey).toBeUndefined();
  });

  it('do not stop a sender wrapping per member in the general channel: it skips them and reports them by name', async () => {
    const sent = await carl.send('all', 'hello from an older session');
    expect(sent.status).toBe(201);
    expect(
      carl.client.skipped
        .of('general')
        .map((m) => [m.id, m.username])
        .sort(),
    ).toEqual(
      [
        [mallory.id, 'mallory'],
        [trudy.id, 'trudy'],
      ].sort(),
    );
    const [read] = await bob.decrypt([sent.body!.message]);
    expect(read?.text).toBe('hello from an older session');
  });

  it('refuses an epoch that leaves out a member whose key is usable', async () => {
    const members = await alice.call(routes.conversationMembers, { query: { receiverId: 'all' } });
    const { epoch, shares } = await createEpoch({
      conversationId: 'general',
      senderId: alice.id,
      membershipVersion: members.membershipVersion,
      // Bob (usable) left out, with Mallory and Trudy (unusable).
      recipients: [{ id: alice.id, encryptionPublicKey: alice.identity.publicIdentity.encryptionPublicKey }],
      signKey: alice.identity.signKey,
    });
    const res = await alice.attempt(routes.createEpoch, {
      body: { epochId: epoch.epochId, receiverId: 'all', membershipVersion: members.membershipVersion, shares },
    });
    expect(res.status).toBe(409);
    expect(res.error?.code).toBe('membership_changed');
  });

  it('still refuse a direct message: it would be wrapped for nobody but the sender', async () => {
    await expect(alice.send(mallory.id, 'hi')).rejects.toThrow(/key of mallory is not a usable key/);
    await expect(alice.send(trudy.id, 'hi')).rejects.toThrow(/key of trudy is not a usable key/);
  });
});
