/**
 * The removal's probe sender (probe.ts), in a worker thread of its own: one more real member, whose
 * client (MemberClient, its own member list) and sends run on this thread's event loop, as a
 * browser member's run on its own, untouched by the re-keying client's work on the bench's main
 * thread. No socket: it never hears `keyRetired`. A send that finds no key in force would still
 * claim the next one (ChannelKey.newSenderEpoch); that claim is held here until another member's
 * claim or key is on the server, and then made, to be refused as a claim that came second.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { routes } from '@enclave/protocol';
import { busyMs, CallLog, paths } from './calls';
import { registerReal } from './members';
import type { ProbeData, ProbeReply, ProbeRequest, ProbeSend } from './probe';

/** How often a held claim looks for another member's. */
const HOLD_POLL_MS = 100;
/** Past this a held claim goes to the server anyway. */
const HOLD_LIMIT_MS = 10 * 60_000;

const data = workerData as ProbeData;
const port = parentPort!;
const post = (reply: ProbeReply) => port.postMessage(reply);
/** This thread's clock as the main thread's: both count from the same wall clock. */
const clock = () => performance.timeOrigin + performance.now();

const { member, joinMs } = await registerReal(data.baseUrl, data.inviteKey, data.index, data.run);
const held: { start: number; end: number }[] = [];
const forward = member.request.bind(member);
member.request = async (method, path, body, headers) => {
  if (path.split('?')[0] === paths.claim) {
    const hold = { start: clock(), end: Number.NaN };
    held.push(hold);
    for (const until = performance.now() + HOLD_LIMIT_MS; performance.now() < until; await sleep(HOLD_POLL_MS)) {
      const { epoch, rekey } = await member.call(routes.channelKey, {});
      if (epoch || rekey) break;
    }
    hold.end = clock();
  }
  return forward(method, path, body, headers);
};
const log = new CallLog();
log.watch(member, data.label);
post({ kind: 'joined', id: member.id, joinMs });

let stopping = false;
let loop: Promise<ProbeSend[]> | null = null;

async function sendOne(text: string): Promise<ProbeSend> {
  const startNow = performance.now();
  const send: ProbeSend = { start: clock(), end: Number.NaN, status: 0, inCalls: 0 };
  try {
    send.status = (await member.send('all', text)).status;
  } catch (error) {
    send.error = error instanceof Error ? error.message : String(error);
  }
  const endNow = performance.now();
  send.end = clock();
  send.inCalls = busyMs(log.calls.filter((c) => c.start >= startNow && c.end <= endNow));
  return send;
}

async function sendLoop(): Promise<ProbeSend[]> {
  const sends: ProbeSend[] = [];
  for (let k = 0; !stopping; k++) {
    const send = await sendOne(`during the removal, ${data.label}, #${k}`);
    sends.push(send);
    const wait = send.start + data.spacingMs - clock();
    if (wait > 0 && !stopping) await sleep(wait);
  }
  return sends;
}

port.on('message', (request: ProbeRequest) => {
  void (async () => {
    try {
      if (request.kind === 'warm') post({ kind: 'warmed', send: await sendOne(`${data.label} warming up`) });
      else if (request.kind === 'start') loop = sendLoop();
      else {
        stopping = true;
        post({ kind: 'sends', sends: (await loop) ?? [], held });
      }
    } catch (error) {
      post({ kind: 'failed', error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  })();
});
