import { describe, it, expect, beforeAll } from 'vitest';
import {
  createAccount,
  generateAccessToken,
  newChannelSecret,
  openChannelShare,
  startWrap,
  type ChannelSecret,
  type ChannelWrapHeader,
  type SignedShareRecipient,
} from '@enclave/crypto';
import { PROGRESS_EVERY, serveWrapRequests, wrapInWorkers, type WrapRequest, type WrapWorker } from './wrap-pool';

/** A worker run on this thread: the scope gets each posted request, with its port, as a message event. */
function inThreadWorker(): WrapWorker & { requests: number } {
  const scope = new EventTarget();
  serveWrapRequests({
    addEventListener: (type, listener) => scope.addEventListener(type, listener as EventListener),
  });
  const worker = {
    requests: 0,
    postMessage(message: WrapRequest, transfer: Transferable[]) {
      worker.requests++;
      scope.dispatchEvent(new MessageEvent('message', { data: structuredClone(message), ports: transfer as MessagePort[] }));
    },
  };
  return worker;
}

type Recipient = SignedShareRecipient & { privateKey: CryptoKey };

let signing: CryptoKeyPair;
let secret: ChannelSecret;
let header: ChannelWrapHeader;
let ephemeralPrivateKey: CryptoKey;
let recipients: Recipient[];

beforeAll(async () => {
  signing = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  secret = await newChannelSecret('general', crypto.randomUUID());
  ({ header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: crypto.randomUUID(), signKey: signing.privateKey }));
  const accounts = await Promise.all(Array.from({ length: 3 }, () => createAccount(generateAccessToken())));
  // More members than one progress step, so each worker reports progress before its shares.
  recipients = Array.from({ length: PROGRESS_EVERY * 2 + 7 }, (_, i) => ({
    id: crypto.randomUUID(),
    sharePublicKey: accounts[i % 3]!.share.sharePublicKey,
    signature: accounts[i % 3]!.share.signature,
    signingPublicKey: accounts[i % 3]!.publicIdentity.signingPublicKey,
    privateKey: accounts[i % 3]!.share.privateKey,
  }));
});

describe('wrapInWorkers', () => {
  it("splits the members across the workers and returns every member's share in their order", async () => {
    const workers = [inThreadWorker(), inThreadWorker()];
    const progress: number[] = [];
    const shares = await wrapInWorkers({
      header,
      secret,
      ephemeralPrivateKey,
      recipients: recipients.map(({ privateKey: _kept, ...recipient }) => recipient),
      workers,
      onProgress: (done) => progress.push(done),
    });
    expect(workers.map((w) => w.requests)).toEqual([1, 1]);
    expect(shares.map((s) => s.recipientId)).toEqual(recipients.map((r) => r.id));
    expect(progress.at(-1)).toBe(recipients.length);
    expect(progress.length).toBeGreaterThan(2);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    for (const i of [0, PROGRESS_EVERY + 3, recipients.length - 1]) {
      const r = recipients[i]!;
      const opened = await openChannelShare({
        header,
        wrappedKey: shares[i]!.wrappedKey,
        self: { id: r.id, sharePublicKey: r.sharePublicKey },
        sharePrivateKey: r.privateKey,
        wrapperVerifyKey: signing.publicKey,
      });
      expect(opened.epochId).toBe(secret.epochId);
    }
  });

  it("fails with a worker's reason, its kind kept, when a member's share key is not signed by them", async () => {
    const [first, second] = recipients.map(({ privateKey: _kept, ...recipient }) => recipient);
    const forged = [first!, { ...second!, signingPublicKey: first!.signingPublicKey }];
    await expect(
      wrapInWorkers({ header, secret, ephemeralPrivateKey, recipients: forged, workers: [inThreadWorker()] }),
    ).rejects.toMatchObject({
      name: 'CryptoError',
      kind: 'bad_signature',
      message: `the share key of ${second!.id} is not signed by their signing key`,
    });
  });
});
