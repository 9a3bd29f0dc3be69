import { describe, it, expect, beforeAll } from 'vitest';
import {
  advanceChannelSecret,
  deriveShareIdentity,
  newChannelSecret,
  openChannelShare,
  senderChainKey,
  startWrap,
  verifyShareKey,
  wrapHeaderBytes,
  wrapShares,
  type ChannelSecret,
  type ChannelWrapHeader,
  type SignedShareRecipient,
} from './channel-keys';
import { ecdsaKeyGen, ecdsaSha256 } from './algorithms';
import { randomBytes } from './bytes';
import { fromBase64, fromHex, toBase64, toHex, utf8 } from './encoding';
import { decryptMessage, encryptMessage, encryptMessageBody } from './message';
import vectors from './vectors.json';

const v = vectors.channelKeys;

/** A member as a wrapper sees them (a {@link SignedShareRecipient}), with their private keys. */
type Member = SignedShareRecipient & { sharePrivateKey: CryptoKey; signKey: CryptoKey; verifyKey: CryptoKey };

/** A member with a share key derived as a bundle's would be, from stand-in signing key bytes. */
async function makeMember(): Promise<Member> {
  const signing = (await crypto.subtle.generateKey(ecdsaKeyGen, true, ['sign', 'verify'])) as CryptoKeyPair;
  const { privateKey, sharePublicKey, signature } = await deriveShareIdentity(randomBytes(138), signing.privateKey);
  return {
    id: crypto.randomUUID(),
    sharePublicKey,
    signature,
    signingPublicKey: toBase64(new Uint8Array(await crypto.subtle.exportKey('spki', signing.publicKey))),
    sharePrivateKey: privateKey,
    signKey: signing.privateKey,
    verifyKey: signing.publicKey,
  };
}

async function rawOf(secret: ChannelSecret): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.exportKey('raw', secret.key)));
}

async function secretFrom(hex: string, generation = 0): Promise<ChannelSecret> {
  const key = await crypto.subtle.importKey('raw', fromHex(hex), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
  return { conversationId: v.conversationId, epochId: v.epochId, generation, key };
}

function flipBit(b64: string, byte = 0): string {
  const bytes = fromBase64(b64);
  bytes[byte]! ^= 1;
  return toBase64(bytes);
}

describe('known answers (node:crypto vectors)', () => {
  it('ratchets the secret forward one HMAC per join', async () => {
    const start = await secretFrom(v.secretsHex[0]!);
    expect(await rawOf(await advanceChannelSecret(start, 1))).toBe(v.secretsHex[1]);
    const two = await advanceChannelSecret(start, 2);
    expect(two.generation).toBe(2);
    expect(await rawOf(two)).toBe(v.secretsHex[2]);
    expect(await rawOf(await advanceChannelSecret(await secretFrom(v.secretsHex[1]!, 1), 2))).toBe(v.secretsHex[2]);
  });

  it("derives a sender's chain key that encrypts as node:crypto does", async () => {
    const secret = await secretFrom(v.secretsHex[2]!, 2);
    const chainKey = await senderChainKey(secret, v.senderId, v.senderEpochId);
    const epoch = { epochId: v.senderEpochId, conversationId: v.conversationId, senderId: v.senderId, membershipVersion: 0, chainKey };
    const ct = await encryptMessageBody({ epoch, index: 0, plaintext: v.plaintext, iv: fromHex(v.ivHex) });
    expect(toBase64(ct)).toBe(v.messageCtBase64);
  });

  it('opens a share wrapped by node:crypto (X25519, HKDF, AES-KW)', async () => {
    const signing = (await crypto.subtle.generateKey(ecdsaKeyGen, false, ['sign', 'verify'])) as CryptoKeyPair;
    const unsigned = {
      conversationId: v.conversationId,
      epochId: v.epochId,
      generation: 2,
      wrapperId: v.wrapperId,
      ephemeralPublicKey: v.ephemeralPublicKey,
    };
    const signature = toBase64(new Uint8Array(await crypto.subtle.sign(ecdsaSha256, signing.privateKey, wrapHeaderBytes(unsigned))));
    const sharePrivateKey = await crypto.subtle.importKey('pkcs8', fromHex(v.recipientPkcs8Hex), { name: 'X25519' }, false, ['deriveKey']);
    const secret = await openChannelShare({
      header: { ...unsigned, signature },
      wrappedKey: v.wrappedKey,
      self: { id: v.recipientId, sharePublicKey: v.recipientPublicKey },
      sharePrivateKey,
      wrapperVerifyKey: signing.publicKey,
    });
    expect(secret.generation).toBe(2);
    expect(await rawOf(secret)).toBe(v.secretsHex[2]);
  });
});

describe('wrapping and opening', () => {
  let wrapper: Member;
  let bob: Member;
  let carol: Member;
  let secret: ChannelSecret;
  let header: ChannelWrapHeader;
  let shares: { recipientId: string; wrappedKey: string }[];

  beforeAll(async () => {
    [wrapper, bob, carol] = await Promise.all([makeMember(), makeMember(), makeMember()]);
    secret = await advanceChannelSecret(await newChannelSecret('general', crypto.randomUUID()), 3);
    const started = await startWrap({ secret, wrapperId: wrapper.id, signKey: wrapper.signKey });
    header = started.header;
    const progress: number[] = [];
    shares = await wrapShares({
      header,
      secret,
      ephemeralPrivateKey: started.ephemeralPrivateKey,
      recipients: [bob, carol],
      onProgress: (n) => progress.push(n),
    });
    expect(progress).toEqual([1, 2]);
  });

  const open = (member: Member, overrides: { header?: Partial<ChannelWrapHeader>; wrappedKey?: string; self?: Member } = {}) =>
    openChannelShare({
      header: { ...header, ...overrides.header },
      wrappedKey: overrides.wrappedKey ?? shares.find((s) => s.recipientId === member.id)!.wrappedKey,
      self: overrides.self ?? member,
      sharePrivateKey: member.sharePrivateKey,
      wrapperVerifyKey: wrapper.verifyKey,
    });

  it('gives each recipient a 40-byte share that opens to the same secret', async () => {
    for (const s of shares) expect(fromBase64(s.wrappedKey)).toHaveLength(40);
    expect(shares.map((s) => s.recipientId)).toEqual([bob.id, carol.id]);
    const opened = await Promise.all([open(bob), open(carol)]);
    for (const o of opened) {
      expect(o).toMatchObject({ conversationId: 'general', epochId: secret.epochId, generation: 3 });
      expect(await rawOf(o)).toBe(await rawOf(secret));
    }
  });

  it('lets a newcomer read forward but not back: sender chains agree from their generation on', async () => {
    const opened = await open(bob);
    const later = await advanceChannelSecret(opened, 5);
    const senderEpochId = crypto.randomUUID();
    const [mine, theirs] = await Promise.all([
      senderChainKey(await advanceChannelSecret(secret, 5), wrapper.id, senderEpochId),
      senderChainKey(later, wrapper.id, senderEpochId),
    ]);
    const epoch = (chainKey: CryptoKey) => ({
      epochId: senderEpochId,
      conversationId: 'general',
      senderId: wrapper.id,
      membershipVersion: 0,
      chainKey,
    });
    const encryptedContent = await encryptMessage({ epoch: epoch(mine), index: 4, plaintext: 'after the join', signKey: wrapper.signKey });
    const read = await decryptMessage({ epoch: epoch(theirs), index: 4, encryptedContent, senderVerifyKey: wrapper.verifyKey });
    expect(read.plaintext).toBe('after the join');
    await expect(advanceChannelSecret(opened, 2)).rejects.toMatchObject({ kind: 'malformed' });
  });

  it('gives different senders, and different sender epochs, different chains', async () => {
    const epochId = crypto.randomUUID();
    const chains = [
      await senderChainKey(secret, bob.id, epochId),
      await senderChainKey(secret, carol.id, epochId),
      await senderChainKey(secret, bob.id, crypto.randomUUID()),
    ];
    const messageKeys = await Promise.all(
      chains.map(async (chainKey) =>
        encryptMessageBody({
          epoch: { epochId, conversationId: 'general', senderId: bob.id, membershipVersion: 0, chainKey },
          index: 0,
          plaintext: 'x',
          iv: new Uint8Array(12),
        }).then(toBase64),
      ),
    );
    expect(new Set(messageKeys).size).toBe(3);
  });

  it('refuses a header the wrapper did not sign, field by field', async () => {
    const swaps: Partial<ChannelWrapHeader>[] = [
      { conversationId: 'group:other' },
      { epochId: crypto.randomUUID() },
      { generation: 2 },
      { wrapperId: bob.id },
      { signature: flipBit(header.signature, 5) },
    ];
    for (const swap of swaps)
      await expect(open(bob, { header: swap }), JSON.stringify(swap)).rejects.toMatchObject({ kind: 'bad_signature' });
  });

  it("refuses another member's share, a share opened under another id, and a changed share", async () => {
    const carolsShare = shares.find((s) => s.recipientId === carol.id)!.wrappedKey;
    await expect(open(bob, { wrappedKey: carolsShare })).rejects.toMatchObject({ kind: 'wrong_recipient' });
    await expect(open(bob, { self: { ...bob, id: carol.id } })).rejects.toMatchObject({ kind: 'wrong_recipient' });
    await expect(open(bob, { wrappedKey: flipBit(shares[0]!.wrappedKey, 20) })).rejects.toMatchObject({ kind: 'wrong_recipient' });
  });

  it('refuses a share wrapped under an ephemeral key other than the signed one', async () => {
    const other = await startWrap({ secret, wrapperId: wrapper.id, signKey: wrapper.signKey });
    const [foreign] = await wrapShares({ header: other.header, secret, ephemeralPrivateKey: other.ephemeralPrivateKey, recipients: [bob] });
    await expect(open(bob, { wrappedKey: foreign!.wrappedKey })).rejects.toMatchObject({ kind: 'wrong_recipient' });
  });

  it('refuses to wrap under the header of another secret, and a share key that is not one', async () => {
    const started = await startWrap({ secret, wrapperId: wrapper.id, signKey: wrapper.signKey });
    const other = await newChannelSecret('general', crypto.randomUUID());
    await expect(
      wrapShares({ header: started.header, secret: other, ephemeralPrivateKey: started.ephemeralPrivateKey, recipients: [bob] }),
    ).rejects.toMatchObject({
      kind: 'malformed',
    });
    const broken = { ...bob, sharePublicKey: toBase64(new Uint8Array(31)) };
    const signed = await crypto.subtle.sign(
      ecdsaSha256,
      bob.signKey,
      utf8(JSON.stringify(['enclave/share-key/v1', broken.sharePublicKey])),
    );
    const brokenSigned = { ...broken, signature: toBase64(new Uint8Array(signed)) };
    for (const recipient of [{ ...bob, signingPublicKey: 'AAAA' }, brokenSigned]) {
      await expect(
        wrapShares({ header: started.header, secret, ephemeralPrivateKey: started.ephemeralPrivateKey, recipients: [recipient] }),
      ).rejects.toMatchObject({ kind: 'malformed' });
    }
  });

  it('wraps for no share key that its member did not sign with the signing key given', async () => {
    const started = await startWrap({ secret, wrapperId: wrapper.id, signKey: wrapper.signKey });
    const wrap = (recipient: SignedShareRecipient) =>
      wrapShares({ header: started.header, secret, ephemeralPrivateKey: started.ephemeralPrivateKey, recipients: [carol, recipient] });
    // A key of someone else's put in Bob's place, with its own signature; and Bob's key under Carol's signing key.
    for (const forged of [
      { ...bob, sharePublicKey: carol.sharePublicKey, signature: carol.signature },
      { ...bob, signingPublicKey: carol.signingPublicKey },
    ]) {
      await expect(wrap(forged)).rejects.toMatchObject({
        kind: 'bad_signature',
        message: `the share key of ${bob.id} is not signed by their signing key`,
      });
    }
  });
});

describe('share keys', () => {
  it('derives the share key node:crypto derives from the same signing key bytes', async () => {
    const signing = (await crypto.subtle.generateKey(ecdsaKeyGen, false, ['sign'])) as CryptoKeyPair;
    const share = await deriveShareIdentity(fromHex(v.signingPkcs8Hex), signing.privateKey);
    expect(share.sharePublicKey).toBe(v.sharePublicKey);
    expect(share.privateKey.extractable).toBe(false);
  });

  it("are signed by the member's signing key, and the signature covers the key", async () => {
    const member = await makeMember();
    const other = await makeMember();
    const { signature } = await deriveShareIdentity(randomBytes(138), member.signKey);
    const mine = await deriveShareIdentity(randomBytes(138), member.signKey);
    const check = (overrides: Partial<{ sharePublicKey: string; verifyKey: CryptoKey; signature: string }>) =>
      verifyShareKey({ sharePublicKey: mine.sharePublicKey, signature: mine.signature, verifyKey: member.verifyKey, ...overrides });
    expect(await check({})).toBe(true);
    expect(await check({ sharePublicKey: other.sharePublicKey })).toBe(false);
    expect(await check({ verifyKey: other.verifyKey })).toBe(false);
    expect(await check({ signature })).toBe(false);
  });
});
