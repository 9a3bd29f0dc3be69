/**
 * The persisted-sends phase of the load bench: every member sends direct messages to the next
 * member, each at the pace its send limit allows (28 per 10 s of the 30 allowed), each waiting for
 * its acknowledgement before the next. A direct message reaches two sockets, so the figure is
 * what the send path (HTTP, session, the insert, the bus) carries, not the fan-out. Each
 * acknowledged send is stored: the server answers 201 only after the commit.
 *
 * At most IN_FLIGHT sends are outstanding at once, the others wait their turn (their wait counts
 * in their latency): a thousand members all sending in the same 357 ms would otherwise open a
 * thousand connections at once, past the server's listen backlog (511), and measure the kernel's
 * SYN retries (1 s, 3 s, 7 s) instead of the send path. 100 in flight carry 2,000 sends/s at
 * 50 ms each (Little's law), the target; a proxy's upstream pool bounds connections the same way.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { inParallel } from './members';

export type PersistedSends = {
  senders: number;
  /** What the senders would send if every answer came at once: senders × their pace. */
  offeredPerS: number;
  sendsPerS: number;
  ackP50Ms: number;
  ackP99Ms: number;
  /** Answers other than 201 (a busy server's 503 among them; no resends in the bench). */
  refused: number;
  /** Sends that got no answer at all (a connection refused or timed out). */
  unanswered: number;
  /** Server CPU per acknowledged send, µs. */
  cpuUsPerSend: number;
  /**
   * CPU busy over the phase (1 = one core): the server's, PostgreSQL's (null on the embedded
   * database, which runs inside the server), and the load client's own (which encrypts and signs
   * each message). On 2 cores their sum is what the machine has.
   */
  serverBusy: number;
  databaseBusy: number | null;
  clientBusy: number;
};

/** Sends one direct message from member `s` to the next; whether it was acknowledged. */
export type SendDirect = (s: number) => Promise<boolean>;

/** The send limit's window (30 per member per 10 s). */
const SEND_WINDOW_MS = 10_000;
/** Sends outstanding at once, at most (see above). */
const IN_FLIGHT = 100;

const pct = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

export async function persistedSends(
  o: {
    senders: number;
    seconds: number;
    spacingMs: number;
    cpuSeconds: () => number;
    databaseCpuSeconds: (() => number) | undefined;
    log: (line: string) => void;
  },
  sendDirect: SendDirect,
): Promise<PersistedSends> {
  // Each sender's first direct message uploads its epoch for that conversation: not measured.
  o.log(`persisted sends: ${o.senders} senders upload their direct-message epochs`);
  await inParallel(o.senders, 16, async (s) => {
    if (!(await sendDirect(s))) throw new Error(`sender ${s}'s first direct message was refused`);
  });
  // A whole window of the send limit, so that the phase starts on fresh counts.
  await sleep(SEND_WINDOW_MS);

  o.log(`persisted sends: ${o.senders} senders for ${o.seconds} s`);
  const acks: number[] = [];
  let refused = 0;
  let unanswered = 0;
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const oneSend = async (s: number): Promise<void> => {
    const sent = performance.now();
    if (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight += 1;
    try {
      if (await sendDirect(s)) acks.push(performance.now() - sent);
      else refused += 1;
    } catch {
      unanswered += 1;
    } finally {
      inFlight -= 1;
      waiting.shift()?.();
    }
  };
  const cpuBefore = o.cpuSeconds();
  const clientBefore = process.cpuUsage();
  const databaseBefore = o.databaseCpuSeconds?.();
  const start = performance.now();
  const end = start + o.seconds * 1000;
  await Promise.all(
    Array.from({ length: o.senders }, async (_, s) => {
      // Spread over one spacing, so that the senders do not all start in the same millisecond.
      await sleep((s / o.senders) * o.spacingMs);
      while (performance.now() < end) {
        const sent = performance.now();
        await oneSend(s);
        const wait = sent + o.spacingMs - performance.now();
        if (wait > 0) await sleep(wait);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  const cpu = o.cpuSeconds() - cpuBefore;
  const client = process.cpuUsage(clientBefore);
  const database = databaseBefore === undefined ? null : o.databaseCpuSeconds!() - databaseBefore;
  const sorted = Float64Array.from(acks).sort();
  const result: PersistedSends = {
    senders: o.senders,
    offeredPerS: round((o.senders * 1000) / o.spacingMs),
    sendsPerS: round(acks.length / seconds),
    ackP50Ms: round(pct(sorted, 50)),
    ackP99Ms: round(pct(sorted, 99)),
    refused,
    unanswered,
    cpuUsPerSend: round((cpu * 1e6) / Math.max(1, acks.length)),
    serverBusy: round(cpu / seconds, 2),
    databaseBusy: database === null ? null : round(database / seconds, 2),
    clientBusy: round((client.user + client.system) / 1e6 / seconds, 2),
  };
  o.log(
    `persisted sends: ${result.sendsPerS}/s acknowledged, p50 ${result.ackP50Ms} ms, p99 ${result.ackP99Ms} ms, ${refused} refused, ${unanswered} unanswered; CPU busy: server ${result.serverBusy}, PostgreSQL ${result.databaseBusy ?? '–'}, load client ${result.clientBusy}`,
  );
  return result;
}
