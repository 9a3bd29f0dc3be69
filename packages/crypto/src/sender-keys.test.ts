import { describe, it, expect, beforeAll } from 'vitest';
import { createEpoch, openEpochShare } from './sender-keys';
import type { Epoch, EpochShareInput, EpochShareUpload } from './sender-keys';
import { createAccount } from './account';
import { importPublicIdentity } from './identity';
import { fromBase64, toBase64 } from './encoding';
import { generateAccessToken } from './token';
import { decryptMessage, encryptMessage } from './message';

type Member = { id: string; encryptionPublicKey: string; decryptKey: CryptoKey; signKey: CryptoKey; verifyKey: CryptoKey };

async function makeMember(): Promise<Member> {
  const { publicIdentity, privateIdentity } = await createAccount(generateAccessToken());
  const { verifyKey } = await importPublicIdentity(publicIdentity);
  return { id: crypto.randomUUID(), encryptionPublicKey: publicIdentity.encryptionPublicKey, ...privateIdentity, verifyKey };
}

function flipBit(b64: string, byte = 0): string {
  const bytes = fromBase64(b64);
  bytes[byte]! ^= 1;
  return toBase64(bytes);
}

let alice: Member;
let bob: Member;
let carol: Member;
let epoch: Epoch;
let shares: EpochShareUpload[];

/** The share as the server would return it to `recipient`. */
function shareFor(recipient: Member): EpochShareInput {
  const upload = shares.find((s) => s.recipientId === recipient.id);
  if (!upload) throw new Error(`no share for ${recipient.id}`);
  return {
    epochId: epoch.epochId,
    conversationId: epoch.conversationId,
    senderId: epoch.senderId,
    membershipVersion: epoch.membershipVersion,
    wrappedKey: upload.wrappedKey,
    signature: upload.signature,
  };
}

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([makeMember(), makeMember(), makeMember()]);
  ({ epoch, shares } = await createEpoch({
    conversationId: 'general',
    senderId: alice.id,
    membershipVersion: 3,
    recipients: [alice, bob],
    signKey: alice.signKey,
  }));
});

describe('createEpoch', () => {
  it('makes one signed share per recipient, in the sizes the protocol expects', () => {
    expect(epoch.epochId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(epoch).toMatchObject({ conversationId: 'general', senderId: alice.id, membershipVersion: 3 });
    expect(shares.map((s) => s.recipientId)).toEqual([alice.id, bob.id]);
    for (const s of shares) {
      expect(s.wrappedKey).toHaveLength(344);
      expect(s.signature).toHaveLength(88);
    }
  });

  it('keeps the chain key non-extractable and usable only for key derivation', () => {
    expect(epoch.chainKey.extractable).toBe(false);
    expect(epoch.chainKey.algorithm.name).toBe('HKDF');
    expect(epoch.chainKey.usages).toEqual(['deriveKey']);
  });

  it('refuses a recipient key that is not RSA SPKI and a bad membership version', async () => {
    const base = { conversationId: 'general', senderId: alice.id, signKey: alice.signKey };
    await expect(
      createEpoch({ ...base, membershipVersion: 1, recipients: [{ id: bob.id, encryptionPublicKey: 'AAAA' }] }),
    ).rejects.toMatchObject({ kind: 'malformed' });
    await expect(createEpoch({ ...base, membershipVersion: -1, recipients: [bob] })).rejects.toMatchObject({
      kind: 'malformed',
    });
  });
});

describe('openEpochShare', () => {
  it('gives each recipient, the sender included, the same chain key', async () => {
    const [own, bobs] = await Promise.all(
      [alice, bob].map((m) =>
        openEpochShare({ share: shareFor(m), recipientId: m.id, decryptKey: m.decryptKey, senderVerifyKey: alice.verifyKey }),
      ),
    );
    expect(bobs).toMatchObject({ epochId: epoch.epochId, conversationId: 'general', senderId: alice.id, membershipVersion: 3 });
    expect(bobs!.chainKey.extractable).toBe(false);
    // Same chain key: what one encrypts under its copy, the others decrypt under theirs.
    const encryptedContent = await encryptMessage({ epoch, index: 0, plaintext: 'hello', signKey: alice.signKey });
    for (const e of [own!, bobs!]) {
      expect(await decryptMessage({ epoch: e, index: 0, encryptedContent, senderVerifyKey: alice.verifyKey })).toEqual({
        version: 1,
        plaintext: 'hello',
      });
    }
  });

  it("reports a share opened with another member's private key as wrong_recipient", async () => {
    // Carol got hold of Bob's share and presents it under Bob's id: the signature holds, RSA does not.
    await expect(
      openEpochShare({ share: shareFor(bob), recipientId: bob.id, decryptKey: carol.decryptKey, senderVerifyKey: alice.verifyKey }),
    ).rejects.toMatchObject({ kind: 'wrong_recipient' });
  });

  it('reports a share presented under another recipient id as bad_signature', async () => {
    await expect(
      openEpochShare({ share: shareFor(bob), recipientId: carol.id, decryptKey: carol.decryptKey, senderVerifyKey: alice.verifyKey }),
    ).rejects.toMatchObject({ kind: 'bad_signature' });
  });

  it('reports a flipped signature bit, a swapped field or another signer as bad_signature', async () => {
    const share = shareFor(bob);
    const tampered: EpochShareInput[] = [
      { ...share, signature: flipBit(share.signature, 10) },
      { ...share, wrappedKey: flipBit(share.wrappedKey, 100) },
      { ...share, membershipVersion: 2 },
      { ...share, conversationId: 'dm:00000000-0000-0000-0000-000000000000:ffffffff-ffff-ffff-ffff-ffffffffffff' },
      { ...share, epochId: crypto.randomUUID() },
      { ...share, senderId: carol.id },
    ];
    for (const t of tampered) {
      await expect(
        openEpochShare({ share: t, recipientId: bob.id, decryptKey: bob.decryptKey, senderVerifyKey: alice.verifyKey }),
      ).rejects.toMatchObject({ kind: 'bad_signature' });
    }
    await expect(
      openEpochShare({ share, recipientId: bob.id, decryptKey: bob.decryptKey, senderVerifyKey: carol.verifyKey }),
    ).rejects.toMatchObject({ kind: 'bad_signature' });
  });

  it('reports a signature that is not base64 as malformed', async () => {
    await expect(
      openEpochShare({
        share: { ...shareFor(bob), signature: '%%%' },
        recipientId: bob.id,
        decryptKey: bob.decryptKey,
        senderVerifyKey: alice.verifyKey,
      }),
    ).rejects.toMatchObject({ kind: 'malformed' });
  });
});
