import { describe, it, expect, beforeAll } from 'vitest';
import { decryptMessage, encryptMessage, encryptMessageBody, messageAad } from './message';
import { createEpoch, importChainKey } from './sender-keys';
import type { Epoch } from './sender-keys';
import { createAccount } from './account';
import { importPublicIdentity } from './identity';
import { fromBase64, fromHex, toBase64, toHex, utf8 } from './encoding';
import { deriveMessageKey } from './message-key';
import { generateAccessToken } from './token';
import vectors from './vectors.json';

type Signer = { id: string; signKey: CryptoKey; verifyKey: CryptoKey; encryptionPublicKey: string };

const v = vectors.message;
let alice: Signer;
let mallory: Signer;
let epoch: Epoch;
let vectorEpoch: Epoch;

async function makeSigner(): Promise<Signer> {
  const { publicIdentity, privateIdentity } = await createAccount(generateAccessToken());
  const { verifyKey } = await importPublicIdentity(publicIdentity);
  return { id: crypto.randomUUID(), signKey: privateIdentity.signKey, verifyKey, encryptionPublicKey: publicIdentity.encryptionPublicKey };
}

type Envelope = { v: number; iv: string; ct: string; sig: string };

function edit(encryptedContent: string, change: (e: Envelope) => void): string {
  const e = JSON.parse(encryptedContent) as Envelope;
  change(e);
  return JSON.stringify(e);
}

function flipBit(b64: string, byte: number): string {
  const bytes = fromBase64(b64);
  bytes[byte]! ^= 1;
  return toBase64(bytes);
}

/** Sign an envelope the way encryptMessage does, for envelopes built by hand. */
async function signed(e: Epoch, index: number, iv: Uint8Array, ct: Uint8Array, signKey: CryptoKey): Promise<string> {
  const data = new Uint8Array([...messageAad(e, index), ...iv, ...ct]);
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, signKey, data));
  return JSON.stringify({ v: 1, iv: toBase64(iv), ct: toBase64(ct), sig: toBase64(sig) });
}

beforeAll(async () => {
  [alice, mallory] = await Promise.all([makeSigner(), makeSigner()]);
  ({ epoch } = await createEpoch({
    conversationId: 'general',
    senderId: alice.id,
    membershipVersion: 1,
    recipients: [alice],
    signKey: alice.signKey,
  }));
  vectorEpoch = {
    epochId: v.epochId,
    conversationId: v.conversationId,
    senderId: v.senderId,
    membershipVersion: 0,
    chainKey: await importChainKey(fromHex(v.chainKeyHex)),
  };
});

describe('known answers (node:crypto vectors)', () => {
  it('builds the AAD and ciphertext node:crypto computed, for indexes 0 and 7', async () => {
    for (const c of v.cases) {
      expect(toHex(messageAad(vectorEpoch, c.index))).toBe(c.aadHex);
      const ct = await encryptMessageBody({ epoch: vectorEpoch, index: c.index, plaintext: v.plaintext, iv: fromHex(v.ivHex) });
      expect(toBase64(ct)).toBe(c.ctBase64);
    }
  });

  it('decrypts the node:crypto ciphertexts once signed', async () => {
    for (const c of v.cases) {
      const encryptedContent = await signed(vectorEpoch, c.index, fromHex(v.ivHex), fromBase64(c.ctBase64), alice.signKey);
      expect(await decryptMessage({ epoch: vectorEpoch, index: c.index, encryptedContent, senderVerifyKey: alice.verifyKey })).toEqual({
        version: 1,
        plaintext: v.plaintext,
      });
    }
  });

  it('binds a v2 body under its own context, as node:crypto computed', async () => {
    const b = vectors.bodyMessage;
    expect(toHex(messageAad(vectorEpoch, b.index, 2))).toBe(b.aadHex);
    const ct = await encryptMessageBody({ epoch: vectorEpoch, index: b.index, plaintext: b.plaintext, version: 2, iv: fromHex(v.ivHex) });
    expect(toBase64(ct)).toBe(b.ctBase64);
  });
});

describe('encryptMessage and decryptMessage', () => {
  const roundTrip = async (plaintext: string, index = 0): Promise<string> => {
    const encryptedContent = await encryptMessage({ epoch, index, plaintext, signKey: alice.signKey });
    const opened = await decryptMessage({ epoch, index, encryptedContent, senderVerifyKey: alice.verifyKey });
    expect(opened.version).toBe(1);
    return opened.plaintext;
  };

  it('round-trips ASCII, non-ASCII, emoji, the empty message and exactly 500 characters', async () => {
    const texts = ['hello', 'Grüße, ﷽, 日本語', '👩‍👩‍👧‍👦🔐🎉', '', 'x'.repeat(500), '🔐'.repeat(250)];
    for (const [i, text] of texts.entries()) expect(await roundTrip(text, i)).toBe(text);
  });

  it('writes the envelope the server schema expects', async () => {
    const encryptedContent = await encryptMessage({ epoch, index: 99, plaintext: '🔐'.repeat(250), signKey: alice.signKey });
    const e = JSON.parse(encryptedContent) as Envelope;
    expect(Object.keys(e)).toEqual(['v', 'iv', 'ct', 'sig']);
    expect(e.v).toBe(1);
    expect(e.iv).toMatch(/^[A-Za-z0-9+/]{16}$/);
    expect(fromBase64(e.sig)).toHaveLength(64);
    expect(encryptedContent.length).toBeLessThanOrEqual(4096);
  });

  it('round-trips a v2 body of 8,192 UTF-8 bytes and refuses one byte more', async () => {
    const body = JSON.stringify({ caption: 'é'.repeat(4084) + 'x'.repeat(10) });
    expect(utf8(body).length).toBe(8192);
    const encryptedContent = await encryptMessage({ epoch, index: 12, plaintext: body, version: 2, signKey: alice.signKey });
    expect((JSON.parse(encryptedContent) as Envelope).v).toBe(2);
    expect(encryptedContent.length).toBeLessThanOrEqual(12 * 1024);
    expect(await decryptMessage({ epoch, index: 12, encryptedContent, senderVerifyKey: alice.verifyKey })).toEqual({
      version: 2,
      plaintext: body,
    });
    await expect(encryptMessage({ epoch, index: 13, plaintext: `${body} `, version: 2, signKey: alice.signKey })).rejects.toMatchObject({
      kind: 'too_long',
    });
  });

  it('uses a fresh IV for every message', async () => {
    const a = await encryptMessage({ epoch, index: 1, plaintext: 'same', signKey: alice.signKey });
    const b = await encryptMessage({ epoch, index: 1, plaintext: 'same', signKey: alice.signKey });
    expect((JSON.parse(a) as Envelope).iv).not.toBe((JSON.parse(b) as Envelope).iv);
  });

  it('refuses 501 characters as too_long and an index outside 0..99 as malformed', async () => {
    await expect(encryptMessage({ epoch, index: 0, plaintext: 'x'.repeat(501), signKey: alice.signKey })).rejects.toMatchObject({
      kind: 'too_long',
    });
    for (const index of [-1, 100, 2.5]) {
      await expect(encryptMessage({ epoch, index, plaintext: 'hi', signKey: alice.signKey })).rejects.toMatchObject({
        kind: 'malformed',
      });
    }
  });

  describe('failures', () => {
    let sent: string;
    const open = (over: Partial<{ epoch: Epoch; index: number; encryptedContent: string; senderVerifyKey: CryptoKey }>) =>
      decryptMessage({ epoch, index: 7, encryptedContent: sent, senderVerifyKey: alice.verifyKey, ...over });

    beforeAll(async () => {
      sent = await encryptMessage({ epoch, index: 7, plaintext: 'meet at noon', signKey: alice.signKey });
    });

    it('opens untouched', async () => {
      expect(await open({})).toEqual({ version: 1, plaintext: 'meet at noon' });
    });

    it('reports a text relabelled as a v2 body (or the reverse) as bad_signature: the version is signed', async () => {
      await expect(open({ encryptedContent: edit(sent, (e) => (e.v = 2)) })).rejects.toMatchObject({ kind: 'bad_signature' });
      const body = await encryptMessage({ epoch, index: 7, plaintext: '{}', version: 2, signKey: alice.signKey });
      await expect(open({ encryptedContent: edit(body, (e) => (e.v = 1)) })).rejects.toMatchObject({ kind: 'bad_signature' });
    });

    it('reports a flipped ciphertext bit as bad_signature, since the signature covers it', async () => {
      await expect(open({ encryptedContent: edit(sent, (e) => (e.ct = flipBit(e.ct, 0))) })).rejects.toMatchObject({
        kind: 'bad_signature',
      });
      await expect(open({ encryptedContent: edit(sent, (e) => (e.iv = flipBit(e.iv, 0))) })).rejects.toMatchObject({
        kind: 'bad_signature',
      });
    });

    it('reports a flipped signature bit as bad_signature', async () => {
      await expect(open({ encryptedContent: edit(sent, (e) => (e.sig = flipBit(e.sig, 33))) })).rejects.toMatchObject({
        kind: 'bad_signature',
      });
    });

    it('reports another index as bad_signature', async () => {
      await expect(open({ index: 8 })).rejects.toMatchObject({ kind: 'bad_signature' });
    });

    it('reports a message moved to another conversation, epoch or sender as bad_signature', async () => {
      const moved: Epoch[] = [
        { ...epoch, conversationId: `dm:${alice.id}:${mallory.id}` },
        { ...epoch, epochId: crypto.randomUUID() },
        { ...epoch, senderId: mallory.id },
      ];
      for (const e of moved) await expect(open({ epoch: e })).rejects.toMatchObject({ kind: 'bad_signature' });
    });

    it('reports a message signed by someone else as bad_signature', async () => {
      await expect(open({ senderVerifyKey: mallory.verifyKey })).rejects.toMatchObject({ kind: 'bad_signature' });
    });

    it('reports a signed ciphertext that does not open as decrypt_failed', async () => {
      // A sender that signs garbage, or gave this reader a different chain key for the same epoch.
      const e = JSON.parse(sent) as Envelope;
      const garbage = await signed(epoch, 7, fromBase64(e.iv), fromBase64(flipBit(e.ct, 0)), alice.signKey);
      await expect(open({ encryptedContent: garbage })).rejects.toMatchObject({ kind: 'decrypt_failed' });
      const otherChain = { ...epoch, chainKey: await importChainKey(crypto.getRandomValues(new Uint8Array(32))) };
      await expect(open({ epoch: otherChain })).rejects.toMatchObject({ kind: 'decrypt_failed' });
    });

    it('reports a broken envelope or index as malformed', async () => {
      for (const encryptedContent of ['', '{}', '[1]', edit(sent, (e) => (e.v = 3)), edit(sent, (e) => (e.iv = e.iv.slice(4)))]) {
        await expect(open({ encryptedContent })).rejects.toMatchObject({ kind: 'malformed' });
      }
      await expect(open({ index: 100 })).rejects.toMatchObject({ kind: 'malformed' });
    });

    it('reports a signed plaintext over 500 characters as too_long', async () => {
      // Only a modified client can produce one; readers still refuse to show it.
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const key = await deriveMessageKey(epoch.chainKey, 5, 'encrypt');
      const aad = messageAad(epoch, 5);
      const ct = await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: aad }, key, utf8('x'.repeat(501)));
      const encryptedContent = await signed(epoch, 5, iv, new Uint8Array(ct), alice.signKey);
      await expect(open({ index: 5, encryptedContent })).rejects.toMatchObject({ kind: 'too_long' });
    });
  });
});
