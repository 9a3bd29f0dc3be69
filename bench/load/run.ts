/**
 * The load bench (`npm run bench:load`, bench/load.ts): one server process pinned to one core, the
 * load client on the other, N authenticated sockets on the general channel. The same client drives
 * Enclave (the production build on a fresh database) and the bare `ws` ceiling (bench/bare-ws.ts)
 * in turn, so each figure has its ratio to the ceiling from the same sitting.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { TestMember } from '../../server/src/testing/member';
import { freshDatabase } from '../soak/database';
import { repoRoot, ServerProcess, type ServerEntry } from '../soak/server-process';
import { Deliveries, openSocket, type LoadSocket } from './client';
import { inParallel, joinMembers } from './members';
import { persistedSends, type PersistedSends, type SendDirect } from './sends';

export type LoadOptions = {
  members: number;
  /** Members who send; each first uploads an epoch with one share per member. */
  senders: number;
  /** Fixed send rate of the latency phase, messages/s. */
  rate: number;
  /** Length of the latency and the saturation phases. */
  seconds: number;
  /** Enclave's server: the production build, another bundle, or the sources through tsx. */
  entry: ServerEntry;
  postgresUrl?: string;
  /** Pin the server to core 0 and the client to core 1 (when taskset and two cores are there). */
  pin: boolean;
  progress: (line: string) => void;
};

export type LoadResult = {
  target: string;
  members: number;
  /** Time from the first upgrade to N sockets authenticated. */
  joinMs: number;
  /** Server CPU from the first upgrade until the presence frames stopped: what other work on the machine does not inflate. */
  joinCpuS: number;
  /** Presence frames the sockets received while joining (and until quiet). */
  presenceFrames: number;
  heapPerSocketKiB: number;
  latency: { sent: number; rate: number; p50Ms: number; p99Ms: number; missing: number; cpuUsPerDelivery: number };
  saturation: { deliveriesPerS: number; sendsPerS: number; ackP99Ms: number; cpuUsPerDelivery: number; cpuShare: number; rssMB: number; refused: number };
  chatFrameBytes: number;
  /** Every member sending direct messages (Enclave only: the bare server stores nothing). */
  persisted: PersistedSends | null;
  /** Sockets the server closed during the run, by close code. */
  closes: Record<string, number>;
};

/** Text of the bench's messages: its chat frame is 584 bytes, as the issue's. */
export const BENCH_TEXT = 'load bench: a message of ordinary length, about as long as a sentence or two in a chat, typed by a user.';
/** The send limit is 30 per member per 10 s (fixed window): 28 per window leaves room. */
const SENDER_SPACING_MS = 10_000 / 28;

type Target = {
  label: string;
  server: ServerProcess;
  socketTarget(i: number): { url: string; headers: Record<string, string> };
  /** Sends one channel message from sender `s`: its id once acknowledged, or null when refused. */
  send(s: number): Promise<number | null>;
  sendDirect?: SendDirect;
  stop(): Promise<void>;
};

const pct = (sorted: Float64Array, p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN);
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Pins every thread of `pid` to `core`; false when it cannot be done here (no taskset). */
export function pin(pid: number, core: number): boolean {
  try {
    execFileSync('taskset', ['-a', '-pc', String(core), String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function enclaveTarget(o: LoadOptions): Promise<Target> {
  const database = await freshDatabase(o.postgresUrl);
  const masterKey = randomBytes(64).toString('hex');
  o.progress(`Enclave on ${database.label}: starting the server`);
  const server = await ServerProcess.start(
    o.entry,
    // TRUST_PROXY=1: each member's X-Forwarded-For is its address, for the per-address limits.
    { ...database.env, MASTER_KEY: masterKey, TRUST_PROXY: '1', LOG_LEVEL: 'warn' },
    path.join(database.dataDir, 'server.log'),
  );
  let members: TestMember[];
  try {
    if (o.pin && !pin(server.pid, 0)) throw new Error('could not pin the server to core 0');
    members = await joinMembers(server.url, masterKey, o.members, o.progress);
    // A refused send is counted as refused, not sent again after the client's delays.
    for (const m of members) m.sendRetryDelaysMs = [];
  } catch (err) {
    await server.stop();
    await database.drop();
    throw err;
  }
  return {
    label: `Enclave (${database.kind === 'embedded' ? 'PGlite' : 'PostgreSQL'})`,
    server,
    socketTarget: (i) => members[i]!.socketTarget(),
    send: async (s) => {
      const res = await members[s]!.send('all', BENCH_TEXT);
      return res.body?.message.id ?? null;
    },
    sendDirect: async (s) => (await members[s]!.send(members[(s + 1) % members.length]!.id, BENCH_TEXT)).status === 201,
    stop: async () => {
      await server.stop();
      const errors = server.errorLines();
      if (errors.length) o.progress(`server errors:\n${errors.slice(0, 10).join('\n')}`);
      await database.drop();
    },
  };
}

async function bareTarget(o: LoadOptions): Promise<Target> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-bare-ws-'));
  const server = await ServerProcess.start({ script: path.join(repoRoot, 'bench/bare-ws.ts') }, {}, path.join(dir, 'server.log'));
  if (o.pin && !pin(server.pid, 0)) {
    await server.stop();
    throw new Error('could not pin the server to core 0');
  }
  return {
    label: 'bare ws',
    server,
    socketTarget: () => ({ url: `ws://127.0.0.1:${server.port}/ws`, headers: {} }),
    send: async () => {
      const res = await fetch(`${server.url}/send`, { method: 'POST' });
      return res.status === 201 ? ((await res.json()) as { id: number }).id : null;
    },
    stop: async () => {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Waits until no frame has come for `quietMs` (at most `maxMs`). */
async function quiet(deliveries: Deliveries, quietMs: number, maxMs: number): Promise<void> {
  const total = () => deliveries.chat + deliveries.presence + deliveries.other;
  const start = performance.now();
  let last = total();
  let lastChange = performance.now();
  while (performance.now() - lastChange < quietMs && performance.now() - start < maxMs) {
    await sleep(100);
    if (total() !== last) {
      last = total();
      lastChange = performance.now();
    }
  }
}

export async function runLoad(kind: 'enclave' | 'bare-ws', o: LoadOptions): Promise<LoadResult> {
  const target = kind === 'enclave' ? await enclaveTarget(o) : await bareTarget(o);
  const { server } = target;
  const log = (line: string) => o.progress(`[${target.label}] ${line}`);
  const deliveries = new Deliveries();
  const sockets: LoadSocket[] = [];
  const senders = Math.min(o.senders, o.members);
  try {
    const before = await server.probe(true);

    log(`connecting ${o.members} sockets`);
    const joinStart = performance.now();
    const joinCpuStart = server.cpuSeconds();
    await inParallel(o.members, 100, async (i) => {
      sockets.push(await openSocket(target.socketTarget(i), deliveries));
    });
    const joinMs = performance.now() - joinStart;
    await quiet(deliveries, 1000, 120_000);
    const joinCpuS = server.cpuSeconds() - joinCpuStart;
    const presenceFrames = deliveries.presence;
    const after = await server.probe(true);
    log(`joined in ${round(joinMs)} ms, ${presenceFrames} presence frames`);

    // Each sender's first message uploads its epoch (one share per member); not measured.
    await inParallel(senders, 4, async (s) => {
      if ((await target.send(s)) === null) throw new Error(`sender ${s}'s first message was refused`);
    });
    await quiet(deliveries, 500, 60_000);
    await sleep(SENDER_SPACING_MS);

    // Latency at a fixed rate: send start to frame arrival, every delivery.
    log(`latency: ${o.rate} messages/s for ${o.seconds} s`);
    const starts = new Map<number, number>();
    deliveries.recording = true;
    const latencyCpuStart = server.cpuSeconds();
    const count = Math.round(o.rate * o.seconds);
    const t0 = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let k = 0; k < count; k++) {
      const wait = t0 + (k * 1000) / o.rate - performance.now();
      if (wait > 0) await sleep(wait);
      const start = performance.now();
      inFlight.push(
        target.send(k % senders).then((id) => {
          if (id !== null) starts.set(id, start);
        }),
      );
    }
    await Promise.all(inFlight);
    await quiet(deliveries, 1000, 30_000);
    const latencyCpu = server.cpuSeconds() - latencyCpuStart;
    deliveries.recording = false;
    const lat = new Float64Array(deliveries.ids.length);
    let n = 0;
    for (let i = 0; i < deliveries.ids.length; i++) {
      const start = starts.get(deliveries.ids[i]!);
      if (start !== undefined) lat[n++] = deliveries.times[i]! - start;
    }
    const sorted = lat.subarray(0, n).sort();
    const latency = { sent: starts.size, rate: o.rate, p50Ms: round(pct(sorted, 50)), p99Ms: round(pct(sorted, 99)), missing: starts.size * o.members - n, cpuUsPerDelivery: round((latencyCpu * 1e6) / Math.max(1, n), 2) };
    log(`latency p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms over ${n} deliveries`);
    await sleep(SENDER_SPACING_MS * 2);

    // Saturation: every sender as fast as its send limit allows, for `seconds`.
    log(`saturation: ${senders} senders for ${o.seconds} s`);
    const acks: number[] = [];
    let refused = 0;
    const chatBefore = deliveries.chat;
    const cpuBefore = server.cpuSeconds();
    const satStart = performance.now();
    const end = satStart + o.seconds * 1000;
    await Promise.all(
      Array.from({ length: senders }, async (_, s) => {
        while (performance.now() < end) {
          const start = performance.now();
          const id = await target.send(s);
          if (id === null) refused += 1;
          else acks.push(performance.now() - start);
          const wait = start + SENDER_SPACING_MS - performance.now();
          if (wait > 0) await sleep(wait);
        }
      }),
    );
    const satMs = performance.now() - satStart;
    const delivered = deliveries.chat - chatBefore;
    const cpu = server.cpuSeconds() - cpuBefore;
    const rssMB = round(server.rssBytes() / 2 ** 20);
    const ackSorted = Float64Array.from(acks).sort();
    const saturation = {
      deliveriesPerS: Math.round(delivered / (satMs / 1000)),
      sendsPerS: round(acks.length / (satMs / 1000)),
      ackP99Ms: round(pct(ackSorted, 99)),
      cpuUsPerDelivery: round((cpu * 1e6) / Math.max(1, delivered), 2),
      cpuShare: round(cpu / (satMs / 1000), 2),
      rssMB,
      refused,
    };
    log(`saturation: ${saturation.deliveriesPerS} deliveries/s, ${saturation.sendsPerS} sends/s, ${saturation.cpuUsPerDelivery} µs CPU per delivery`);
    await quiet(deliveries, 1000, 30_000);

    // Read before the direct messages, whose frames name a longer conversation id.
    const chatFrameBytes = deliveries.chatFrameBytes;
    const persisted = target.sendDirect
      ? await persistedSends({ senders: o.members, seconds: o.seconds, spacingMs: SENDER_SPACING_MS, cpuSeconds: () => server.cpuSeconds(), log }, target.sendDirect)
      : null;

    return {
      target: target.label,
      members: o.members,
      joinMs: Math.round(joinMs),
      joinCpuS: round(joinCpuS, 2),
      presenceFrames,
      heapPerSocketKiB: round((after.heapUsed - before.heapUsed) / o.members / 1024),
      latency,
      saturation,
      chatFrameBytes,
      persisted,
      closes: Object.fromEntries(deliveries.closes),
    };
  } finally {
    for (const socket of sockets) socket.close();
    await target.stop();
  }
}
