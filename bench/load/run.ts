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
import { dropRedisPrefix } from '../../server/src/testing/redis-prefix';
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
  /** Instances of Enclave on the PostgreSQL database, sharing events through Redis at `redisUrl`; members spread over them. */
  instances: number;
  redisUrl: string;
  /** Pin the server to core 0 and the client to core 1 (when taskset and two cores are there). */
  pin: boolean;
  progress: (line: string) => void;
  /** A directory for heap snapshots of each server before and after the join (BENCH_HEAP_SNAPSHOTS). */
  heapSnapshots?: string;
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
  saturation: {
    deliveriesPerS: number;
    sendsPerS: number;
    ackP99Ms: number;
    cpuUsPerDelivery: number;
    cpuShare: number;
    rssMB: number;
    refused: number;
  };
  chatFrameBytes: number;
  /** Every member sending direct messages (Enclave only: the bare server stores nothing). */
  persisted: PersistedSends | null;
  /** Sockets the server closed during the run, by close code. */
  closes: Record<string, number>;
};

/** Text of the bench's messages: its chat frame is 584 bytes, as the issue's. */
export const BENCH_TEXT = 'load bench: a message of ordinary length, about as long as a sentence or two, typed by us.';
/** The send limit is 30 per member per 10 s (fixed window): 28 per window leaves room. */
const SENDER_SPACING_MS = 10_000 / 28;

type Target = {
  label: string;
  /** Enclave's instances, or the one bare server: their CPU, memory and heap are added up. */
  servers: ServerProcess[];
  socketTarget(i: number): { url: string; headers: Record<string, string> };
  /** Sends one channel message from sender `s`: its id once acknowledged, or null when refused. */
  send(s: number): Promise<number | null>;
  sendDirect?: SendDirect;
  stop(): Promise<void>;
};

const pct = (sorted: Float64Array, p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;

/**
 * CPU (utime + stime, seconds) of every PostgreSQL process on this machine: its backends do the
 * send path's other half. Backends that exit meanwhile take their time with them; the server's
 * pool keeps its own open throughout.
 */
function postgresCpuSeconds(): number {
  const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  let sum = 0;
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    if (!stat.includes(' (postgres) ')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    sum += Number(fields[11]) + Number(fields[12]);
  }
  return sum / ticks;
}

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
  if (o.instances > 1 && !o.postgresUrl)
    throw new Error('BENCH_INSTANCES > 1 needs DATABASE_URL: the embedded database serves one instance');
  const database = await freshDatabase(o.postgresUrl);
  const masterKey = randomBytes(64).toString('hex');
  const redisPrefix = `enclave-bench-${randomBytes(6).toString('hex')}`;
  // TRUST_PROXY=1: each member's X-Forwarded-For is its address, for the per-address limits.
  const env = {
    ...database.env,
    MASTER_KEY: masterKey,
    TRUST_PROXY: '1',
    LOG_LEVEL: 'warn',
    ...(o.instances > 1 ? { REDIS_URL: o.redisUrl, REDIS_PREFIX: redisPrefix } : {}),
  };
  const servers: ServerProcess[] = [];
  const stopAll = async () => {
    for (const server of servers) await server.stop();
    // The logs are in the data directory, removed with the database.
    const errors = servers.flatMap((server) => server.errorLines());
    if (errors.length) o.progress(`server errors:\n${errors.slice(0, 10).join('\n')}`);
    await database.drop();
    if (o.instances > 1) await dropRedisPrefix(o.redisUrl, redisPrefix);
  };
  let members: TestMember[];
  try {
    // One after the other: the first applies the migrations.
    for (let k = 0; k < o.instances; k++) {
      o.progress(`Enclave on ${database.label}: starting instance ${k + 1} of ${o.instances}`);
      servers.push(await ServerProcess.start(o.entry, env, path.join(database.dataDir, `server-${k}.log`)));
    }
    if (o.pin && !pin(servers[0]!.pid, 0)) throw new Error('could not pin the server to core 0');
    // Member i registers, sends and holds its socket on instance i mod K, as nginx's round robin spreads them.
    members = await joinMembers(
      servers.map((s) => s.url),
      masterKey,
      o.members,
      o.progress,
    );
    // A refused send is counted as refused, not sent again after the client's delays.
    for (const m of members) m.sendRetryDelaysMs = [];
  } catch (err) {
    await stopAll();
    throw err;
  }
  return {
    label: `Enclave (${database.kind === 'embedded' ? 'PGlite' : 'PostgreSQL'}${o.instances > 1 ? `, ${o.instances} instances` : ''})`,
    servers,
    socketTarget: (i) => members[i]!.socketTarget(),
    send: async (s) => {
      const res = await members[s]!.send('all', BENCH_TEXT);
      return res.body?.message.id ?? null;
    },
    sendDirect: async (s) => (await members[s]!.send(members[(s + 1) % members.length]!.id, BENCH_TEXT)).status === 201,
    stop: stopAll,
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
    servers: [server],
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
  const { servers } = target;
  const cpuSeconds = () => servers.reduce((sum, s) => sum + s.cpuSeconds(), 0);
  const snapshot = (i: number, moment: string) =>
    o.heapSnapshots ? path.join(o.heapSnapshots, `${kind}-${i}-${moment}.heapsnapshot`) : undefined;
  const heapUsed = async (gc: boolean, moment?: string) =>
    (await Promise.all(servers.map((s, i) => s.probe(gc, moment ? snapshot(i, moment) : undefined)))).reduce(
      (sum, p) => sum + p.heapUsed,
      0,
    );
  const log = (line: string) => o.progress(`[${target.label}] ${line}`);
  const deliveries = new Deliveries();
  const sockets: LoadSocket[] = [];
  const senders = Math.min(o.senders, o.members);
  try {
    const before = await heapUsed(true, 'before-join');

    log(`connecting ${o.members} sockets`);
    const joinStart = performance.now();
    const joinCpuStart = cpuSeconds();
    await inParallel(o.members, 100, async (i) => {
      sockets.push(await openSocket(target.socketTarget(i), deliveries));
    });
    const joinMs = performance.now() - joinStart;
    await quiet(deliveries, 1000, 120_000);
    const joinCpuS = cpuSeconds() - joinCpuStart;
    const presenceFrames = deliveries.presence;
    const after = await heapUsed(true, 'after-join');
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
    const latencyCpuStart = cpuSeconds();
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
    const latencyCpu = cpuSeconds() - latencyCpuStart;
    deliveries.recording = false;
    const lat = new Float64Array(deliveries.ids.length);
    let n = 0;
    for (let i = 0; i < deliveries.ids.length; i++) {
      const start = starts.get(deliveries.ids[i]!);
      if (start !== undefined) lat[n++] = deliveries.times[i]! - start;
    }
    const sorted = lat.subarray(0, n).sort();
    const latency = {
      sent: starts.size,
      rate: o.rate,
      p50Ms: round(pct(sorted, 50)),
      p99Ms: round(pct(sorted, 99)),
      missing: starts.size * o.members - n,
      cpuUsPerDelivery: round((latencyCpu * 1e6) / Math.max(1, n), 2),
    };
    log(`latency p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms over ${n} deliveries`);
    await sleep(SENDER_SPACING_MS * 2);

    // Saturation: every sender as fast as its send limit allows, for `seconds`.
    log(`saturation: ${senders} senders for ${o.seconds} s`);
    const acks: number[] = [];
    let refused = 0;
    const chatBefore = deliveries.chat;
    const cpuBefore = cpuSeconds();
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
    const cpu = cpuSeconds() - cpuBefore;
    const rssMB = round(servers.reduce((sum, s) => sum + s.rssBytes(), 0) / 2 ** 20);
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
    log(
      `saturation: ${saturation.deliveriesPerS} deliveries/s, ${saturation.sendsPerS} sends/s, ${saturation.cpuUsPerDelivery} µs CPU per delivery`,
    );
    await quiet(deliveries, 1000, 30_000);

    // Read before the direct messages, whose frames name a longer conversation id.
    const chatFrameBytes = deliveries.chatFrameBytes;
    const persisted = target.sendDirect
      ? await persistedSends(
          {
            senders: o.members,
            seconds: o.seconds,
            spacingMs: SENDER_SPACING_MS,
            cpuSeconds,
            databaseCpuSeconds: o.postgresUrl ? postgresCpuSeconds : undefined,
            log,
          },
          target.sendDirect,
        )
      : null;

    return {
      target: target.label,
      members: o.members,
      joinMs: Math.round(joinMs),
      joinCpuS: round(joinCpuS, 2),
      presenceFrames,
      heapPerSocketKiB: round((after - before) / o.members / 1024),
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
