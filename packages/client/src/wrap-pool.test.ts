import { describe, it, expect, beforeAll } from 'vitest';
import {
  createAccount,
  generateAccessToken,
  newChannelSecret,
  openChannelShare,
  startWrap,
  type ChannelSecret,
  type ChannelWrapHeader,
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

type Recipient = { id: string; sharePublicKey: string; privateKey: CryptoKey };

let signing: CryptoKeyPair;
let secret: ChannelSecret;
let header: ChannelWrapHeader;
let ephemeralPrivateKey: CryptoKey;
let recipients: Recipient[];

beforeAll(async () => {
  signing = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  secret = await newChannelSecret('general', crypto.randomUUID());
  ({ header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: crypto.randomUUID(), signKey: signing.privateKey }));
  const keys = await Promise.all(Array.from({ length: 3 }, async () => (await createAccount(generateAccessToken())).share));
  // More members than one progress step, so each worker reports progress before its shares.
  recipients = Array.from({ length: PROGRESS_EVERY * 2 + 7 }, (_, i) => ({
    id: crypto.randomUUID(),
    sharePublicKey: keys[i % 3]!.sharePublicKey,
    privateKey: keys[i % 3]!.privateKey,
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
      recipients: recipients.map(({ id, sharePublicKey }) => ({ id, sharePublicKey })),
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

  it("fails with a worker's reason when a member's share key does not import", async () => {
    const broken = [{ id: crypto.randomUUID(), sharePublicKey: 'AAAA' }];
    await expect(wrapInWorkers({ header, secret, ephemeralPrivateKey, recipients: broken, workers: [inThreadWorker()] })).rejects.toThrow(
      'a share key does not import',
    );
  });
});
