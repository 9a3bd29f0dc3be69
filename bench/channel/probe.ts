/**
 * The probe sender: one more real member whose client runs in a worker thread of its own
 * (probe-worker.ts), so that its sends during the removal wait on the server and on its own client
 * only, as a browser member's do, not on the re-keying client that shares the bench's main thread
 * with every other sender. Registered with the senders (so that it holds a share of the first key);
 * warmed by one send before the removal (its share opened, its own member list fetched); then it
 * sends every `spacingMs` from `start` until `stop`. Times come back in this thread's
 * `performance.now()`, converted through the wall clock both threads count from.
 */
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/** What the worker is started with. */
export type ProbeData = { baseUrl: string; inviteKey: string; index: number; run: string; label: string; spacingMs: number };
/** One send of the probe: `start`, `end` in ms of the wall clock (timeOrigin + now) in the worker, then of this thread's `performance.now()`. */
export type ProbeSend = { start: number; end: number; status: number; error?: string; inCalls: number };
export type ProbeRequest = { kind: 'warm' } | { kind: 'start' } | { kind: 'stop' };
export type ProbeReply =
  | { kind: 'joined'; id: string; joinMs: number }
  | { kind: 'warmed'; send: ProbeSend }
  | { kind: 'sends'; sends: ProbeSend[]; held: { start: number; end: number }[] }
  | { kind: 'failed'; error: string };

/** From the worker's wall-clock ms to this thread's `performance.now()`. */
const local = (t: number) => t - performance.timeOrigin;
const localSend = (s: ProbeSend): ProbeSend => ({ ...s, start: local(s.start), end: local(s.end) });

export class Probe {
  private readonly replies: ProbeReply[] = [];
  private waiting: (() => void) | null = null;
  private failure: Error | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly label: string,
  ) {
    worker.on('message', (reply: ProbeReply) => {
      if (reply.kind === 'failed') this.fail(new Error(`the probe failed: ${reply.error}`));
      else this.replies.push(reply);
      this.waiting?.();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`the probe's worker exited (${code})`)));
  }

  private fail(error: Error) {
    this.failure ??= error;
    this.waiting?.();
  }

  /** Starts the worker, which registers and signs in; resolves with its id once it has. */
  static async join(data: ProbeData): Promise<{ probe: Probe; id: string; joinMs: number }> {
    const probe = new Probe(new Worker(new URL('./probe-worker.ts', import.meta.url), { workerData: data }), data.label);
    const { id, joinMs } = await probe.next('joined');
    return { probe, id, joinMs };
  }

  private async next<K extends ProbeReply['kind']>(kind: K): Promise<Extract<ProbeReply, { kind: K }>> {
    for (;;) {
      const i = this.replies.findIndex((r) => r.kind === kind);
      if (i >= 0) return this.replies.splice(i, 1)[0] as Extract<ProbeReply, { kind: K }>;
      if (this.failure) throw this.failure;
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
  }

  private post(request: ProbeRequest) {
    this.worker.postMessage(request);
  }

  /** One send before the removal: its share of the key opened and its member list fetched, as a member who has sent before. */
  async warm(): Promise<ProbeSend> {
    this.post({ kind: 'warm' });
    return localSend((await this.next('warmed')).send);
  }

  start(): void {
    this.post({ kind: 'start' });
  }

  /** Stops the sends (the one under way finishes) and returns them, with the claims the worker held. */
  async stop(): Promise<{ sends: ProbeSend[]; held: { start: number; end: number }[] }> {
    this.post({ kind: 'stop' });
    const { sends, held } = await this.next('sends');
    return { sends: sends.map(localSend), held: held.map((h) => ({ start: local(h.start), end: local(h.end) })) };
  }

  async close(): Promise<void> {
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }
}
