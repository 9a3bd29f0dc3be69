/**
 * The wrap bench's page (bench/wrap/chromium.ts bundles it): `window.wrapBench` times one wrap of
 * a channel of `members` in this Chromium, today's `createEpoch` on the page's thread or the
 * channel key across `navigator.hardwareConcurrency` Web Workers, and the page's longest task
 * meanwhile.
 */
import { createEpoch, newChannelSecret, startWrap } from '@enclave/crypto';
import { wrapInWorkers } from '@enclave/client';
import { checkShareKeys, rsaPublicKeys, sharePublicKeys, signedShareKeys } from './keys';

/** Today's wrap, the channel key's, or the checks of the recipients' share keys before the latter. */
export type WrapKind = 'today' | 'channel' | 'checks';
export type PageResult = { ms: number; uploadBytes: number; longestTaskMs: number; progressReports: number; workers: number };

/** Runs `work` while watching for long tasks on this thread: its wall time, the longest task, and what it made. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; longestTaskMs: number; made: T }> {
  let longestTaskMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestTaskMs = Math.max(longestTaskMs, entry.duration);
  });
  observer.observe({ type: 'longtask', buffered: false });
  const start = performance.now();
  const made = await work();
  const ms = performance.now() - start;
  // Long tasks are reported after they end: one more frame lets the last one in.
  await new Promise((resolve) => requestAnimationFrame(resolve));
  observer.disconnect();
  return { ms, longestTaskMs, made };
}

async function wrapBench(kind: WrapKind, members: number, keyCount: number): Promise<PageResult> {
  const { privateKey: signKey } = (await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
  ])) as CryptoKeyPair;
  if (kind === 'today') {
    const keys = await rsaPublicKeys(keyCount);
    const recipients = Array.from({ length: members }, (_, i) => ({ id: crypto.randomUUID(), encryptionPublicKey: keys[i % keyCount]! }));
    const { ms, longestTaskMs, made } = await timed(() =>
      createEpoch({ conversationId: 'general', senderId: crypto.randomUUID(), membershipVersion: 1, recipients, signKey }),
    );
    // The body's size is measured after the clock and the long-task watch stopped: it is not the wrap.
    const uploadBytes = JSON.stringify({
      epochId: made.epoch.epochId,
      receiverId: 'all',
      membershipVersion: 1,
      shares: made.shares,
    }).length;
    return { ms, longestTaskMs, uploadBytes, progressReports: 0, workers: 0 };
  }
  if (kind === 'checks') {
    // On the page's thread, as KeyTrust runs them.
    const signed = await signedShareKeys(keyCount);
    const { ms, longestTaskMs } = await timed(() => checkShareKeys(members, signed));
    return { ms, longestTaskMs, uploadBytes: 0, progressReports: 0, workers: 0 };
  }
  const keys = await sharePublicKeys(keyCount);
  const recipients = Array.from({ length: members }, (_, i) => ({ id: crypto.randomUUID(), sharePublicKey: keys[i % keyCount]! }));
  const workers = Array.from({ length: navigator.hardwareConcurrency }, () => new Worker('/worker.js', { type: 'module' }));
  let progressReports = 0;
  const { ms, longestTaskMs, made } = await timed(async () => {
    const secret = await newChannelSecret('general', crypto.randomUUID());
    const { header, ephemeralPrivateKey } = await startWrap({ secret, wrapperId: crypto.randomUUID(), signKey });
    const shares = await wrapInWorkers({ header, secret, ephemeralPrivateKey, recipients, workers, onProgress: () => progressReports++ });
    return { header, shares };
  });
  for (const worker of workers) worker.terminate();
  return { ms, longestTaskMs, uploadBytes: JSON.stringify(made).length, progressReports, workers: workers.length };
}

Object.assign(window, { wrapBench });
