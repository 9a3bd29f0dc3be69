/**
 * Wrapping a channel secret for many members off the page's thread (docs/scaling.md §6): the
 * members are cut into one contiguous slice per Web Worker, each worker runs `wrapShares` of
 * @enclave/crypto on its slice (each member's share-key signature checked, then the wrap), and the
 * shares come back in the members' order. CryptoKeys are
 * structured-cloneable, so the secret and the upload's ephemeral private key are posted as they
 * are, never as bytes. WebCrypto runs one worker's operations one after another, so workers on
 * other cores are what makes a 100,000-member wrap faster.
 */
import {
  CryptoError,
  wrapShares,
  type ChannelSecret,
  type ChannelShare,
  type ChannelWrapHeader,
  type CryptoErrorKind,
  type SignedShareRecipient,
} from '@enclave/crypto';

/** What a worker is asked: wrap `secret` under `header` for `recipients`. */
export type WrapRequest = {
  header: ChannelWrapHeader;
  secret: ChannelSecret;
  ephemeralPrivateKey: CryptoKey;
  recipients: SignedShareRecipient[];
};

/** What a worker answers: progress counts while it works, then its shares or why it failed (a CryptoError's kind kept). */
export type WrapReply = { done: number } | { shares: ChannelShare[] } | { error: string; kind?: CryptoErrorKind };

/** A worker as the page sees it: it takes a request with the port its replies come back on. */
export type WrapWorker = { postMessage(message: WrapRequest, transfer: Transferable[]): void };

/** A worker's global scope as it serves: each request arrives with its reply port. */
export type WrapScope = { addEventListener(type: 'message', listener: (event: MessageEvent<WrapRequest>) => void): void };

/** A worker posts its progress after this many shares, so 100,000 shares make 100 messages, not 100,000. */
export const PROGRESS_EVERY = 1000;

/** The worker's side: answers each {@link WrapRequest} posted to `scope` on the port that came with it. */
export function serveWrapRequests(scope: WrapScope): void {
  scope.addEventListener('message', (event) => {
    const [port] = event.ports;
    if (!port) return;
    const reply = (message: WrapReply) => port.postMessage(message);
    const { recipients } = event.data;
    wrapShares({
      ...event.data,
      onProgress: (done) => {
        if (done % PROGRESS_EVERY === 0 && done < recipients.length) reply({ done });
      },
    }).then(
      (shares) => reply({ shares }),
      (error: unknown) =>
        reply(
          error instanceof CryptoError
            ? { error: error.message, kind: error.kind }
            : { error: error instanceof Error ? error.message : String(error) },
        ),
    );
  });
}

/**
 * The page's side: wraps for every recipient across `workers`, one request each on a channel of
 * its own (so a worker can serve many wraps), and resolves with the shares in `recipients`'
 * order. `onProgress` gets the number of shares done so far.
 *
 * @throws CryptoError, or an Error with a worker's reason, when one fails (the others' work is dropped).
 */
export async function wrapInWorkers(
  args: WrapRequest & { workers: WrapWorker[]; onProgress?: (done: number) => void },
): Promise<ChannelShare[]> {
  const { recipients, workers, onProgress, ...request } = args;
  if (workers.length === 0) throw new Error('no worker to wrap in');
  const size = Math.ceil(recipients.length / workers.length);
  const done = workers.map(() => 0);
  const slices = await Promise.all(
    workers.map(
      (worker, w) =>
        new Promise<ChannelShare[]>((resolve, reject) => {
          const slice = recipients.slice(w * size, (w + 1) * size);
          const { port1, port2 } = new MessageChannel();
          port1.onmessage = (event: MessageEvent<WrapReply>) => {
            const reply = event.data;
            if ('error' in reply) {
              port1.close();
              return reject(reply.kind ? new CryptoError(reply.kind, reply.error) : new Error(reply.error));
            }
            done[w] = 'done' in reply ? reply.done : slice.length;
            onProgress?.(done.reduce((a, b) => a + b, 0));
            if ('shares' in reply) {
              port1.close();
              resolve(reply.shares);
            }
          };
          worker.postMessage({ ...request, recipients: slice }, [port2]);
        }),
    ),
  );
  return slices.flat();
}
