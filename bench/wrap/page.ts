/**
 * The wrap bench's page (bench/wrap/chromium.ts bundles it): `window.wrapBench` times one wrap of
 * a channel of `members` in this Chromium, today's `createEpoch` on the page's thread, the channel
 * key (share-key signatures checked, then the wrap) across `navigator.hardwareConcurrency` Web
 * Workers, or the trust checks before the latter or the member list's pin check on the page's
 * thread over the web app's own IndexedDB pin store, and the page's longest task meanwhile.
 */
import { createEpoch, newChannelSecret, startWrap } from '@enclave/crypto';
import { wrapInWorkers } from '@enclave/client';
import { indexedDbPinStore } from '../../web/src/chat/key-pins';
import { checkRecipients, listCheckOfNextSession, memberList, rsaPublicKeys, signedRecipients, signedShareKeys, trustOver } from './keys';

/**
 * Today's wrap, the channel key's, the trust checks of the recipients that come before the latter,
 * or the member list's pin check when a later session opens the chat.
 */
export type WrapKind = 'today' | 'channel' | 'trust' | 'list';
export type PageResult = { ms: number; uploadBytes: number; longestTaskMs: number; progressReports: number; workers: number };

/** Runs `work` while watching for long tasks on this thread: its wall time, the longest task, and what it made. */
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; longestTaskMs: number; made: T }> {
  // A task of its own: the setup's task (making 100,000 members) would otherwise count as the work's.
  await new Promise((resolve) => setTimeout(resolve, 0));
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
  if (kind === 'trust' || kind === 'list') {
    // On the page's thread, as KeyTrust runs them, with the web app's pins in IndexedDB.
    const list = memberList(members, await rsaPublicKeys(keyCount), await signedShareKeys(keyCount));
    const work =
      kind === 'trust'
        ? () => checkRecipients(trustOver(list, indexedDbPinStore, crypto.randomUUID()), list)
        : await listCheckOfNextSession(list, indexedDbPinStore);
    const { ms, longestTaskMs } = await timed(work);
    return { ms, longestTaskMs, uploadBytes: 0, progressReports: 0, workers: 0 };
  }
  const recipients = signedRecipients(members, await signedShareKeys(keyCount));
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
