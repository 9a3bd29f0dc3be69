/**
 * The soak: one server process, a given number of end-to-end encrypted messages through it (the
 * general channel and direct messages, sent by the web app's client core in `TestMember`), while
 * members join with invite keys, close their sockets, log out, leave for good, and are banned and
 * unbanned by the creator with the master key — each membership change forcing sender-key
 * rotations. The server is measured before, during and after; the invariants (checks.ts) are
 * checked at the end. Used by `npm run bench:soak` (bench/soak.ts) and server/src/soak.test.ts.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import { decryptSample, fanOut, invariants, type Invariant } from './checks';
import { freshDatabase, rowCounts, storedMessages, type RowCounts } from './database';
import { runLoad, type LoadOptions } from './load';
import { SoakNetwork, type ChurnCounts } from './network';
import { ServerProcess, type ProbeAnswer, type ServerEntry } from './server-process';

export type SoakOptions = LoadOptions & {
  /** Members who join before the load; more join during it. */
  initialMembers: number;
  /** Of those, members never churned: their sockets must receive every frame meant for them. */
  steadyMembers: number;
  entry: ServerEntry;
  /** A PostgreSQL server to make a fresh database on; the embedded database without it. */
  postgresUrl?: string;
  logLevel: string;
  progress?: (line: string) => void;
};

/**
 * The soak's shape for a number of messages: a churn step every 1,000 messages (at least 12, so
 * that a short run has each kind three times), a measure at every tenth of the load.
 */
export function soakOptions(messages: number, overrides: Partial<SoakOptions> = {}): SoakOptions {
  return {
    messages,
    initialMembers: 16,
    steadyMembers: 4,
    concurrency: 8,
    directPercent: 20,
    churnSteps: Math.max(12, Math.round(messages / 1000)),
    checkpoints: 9,
    entry: 'dist',
    // The production counts per window (30 sends per member, 5 logins per address...) over 1 s
    // instead of 10 to 60 s: the members of a soak all come from 127.0.0.1.
    rateLimitWindowMs: 1000,
    logLevel: 'warn',
    ...overrides,
  };
}

export type Snapshot = {
  label: string;
  /** Messages acknowledged so far. */
  messages: number;
  elapsedS: number;
  /** Heap used as found, then after a full GC. */
  heapUsedMB: number;
  heapAfterGcMB: number;
  heapTotalMB: number;
  /** Memory outside the JS heap (PGlite's WebAssembly memory among it). */
  externalMB: number;
  rssMB: number;
  /** TCP connections the server holds on its port, from /proc. */
  connections: number;
  /** WebSockets the members hold open (client side). */
  websockets: number;
  /** Event-loop delay since the previous snapshot. */
  lagMs: ProbeAnswer['lagMs'];
};

export type SoakReport = {
  startedAt: string;
  durationS: number;
  loadDurationS: number;
  messagesPerSecond: number;
  machine: { cpus: number; node: string; platform: string };
  database: string;
  options: Omit<SoakOptions, 'progress' | 'postgresUrl'>;
  members: ChurnCounts & { initial: number; total: number };
  messages: { acknowledged: number; general: number; direct: number; refused: Record<string, number> };
  snapshots: Snapshot[];
  rows: RowCounts;
  rowsRead: 'while the server ran' | 'after the server stopped';
  decryption: { sampled: number; ok: number };
  serverExitCode: number | null;
  serverErrors: string[];
  invariants: Invariant[];
};

const mb = (bytes: number) => round(bytes / (1024 * 1024));
const round = (n: number) => Math.round(n * 10) / 10;

/**
 * Node's fetch keeps idle connections for as long as the server's Keep-Alive hint allows (71 s
 * with Fastify's); closing its global dispatcher ends them now, and a fresh one of the same kind
 * serves any later call. The symbols are undici's documented hooks for the global dispatcher:
 * Node 24 keeps one dispatcher under both, Node 26 keeps it under `.2` and a wrapper of it for the
 * older interface under `.1`.
 */
async function closeIdleHttpConnections(): Promise<void> {
  type Dispatcher = { close(): Promise<void>; constructor: new (inner?: Dispatcher) => Dispatcher };
  const slot = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  const [v2, v1] = [Symbol.for('undici.globalDispatcher.2'), Symbol.for('undici.globalDispatcher.1')];
  const current = slot[v2] ?? slot[v1];
  if (!current) return;
  const fresh = new current.constructor();
  const older = slot[v1];
  if (slot[v2]) slot[v2] = fresh;
  if (older) slot[v1] = older === current ? fresh : new older.constructor(fresh);
  await current.close();
}

/** Polls `check` every 200 ms until it gives `want`, for up to `ms`; the last value. */
async function settle<T>(check: () => T | Promise<T>, want: T, ms: number): Promise<T> {
  let value = await check();
  for (let waited = 0; value !== want && waited < ms; waited += 200) {
    await sleep(200);
    value = await check();
  }
  return value;
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const log = o.progress ?? (() => undefined);
  const t0 = Date.now();
  const database = await freshDatabase(o.postgresUrl);
  const masterKey = randomBytes(64).toString('hex');
  log(`database: ${database.label}; starting the server (${o.entry})`);
  let server: ServerProcess | null = null;
  let net: SoakNetwork | null = null;
  let finished = false;
  try {
    server = await ServerProcess.start(
      o.entry,
      { ...database.env, MASTER_KEY: masterKey, RATE_LIMIT_WINDOW_MS: String(o.rateLimitWindowMs), LOG_LEVEL: o.logLevel },
      path.join(database.dataDir, 'server.log'),
    );
    const srv = server;
    const network = (net = new SoakNetwork(srv, masterKey, o.rateLimitWindowMs));
    const snapshots: Snapshot[] = [];
    const snapshot = async (label: string, acknowledged: number) => {
      const found = await srv.probe(false);
      const collected = await srv.probe(true);
      const lag = found.lagMs;
      const s: Snapshot = {
        label,
        messages: acknowledged,
        elapsedS: round((Date.now() - t0) / 1000),
        heapUsedMB: mb(found.heapUsed),
        heapAfterGcMB: mb(collected.heapUsed),
        heapTotalMB: mb(collected.heapTotal),
        externalMB: mb(collected.external),
        rssMB: mb(srv.rssBytes()),
        connections: srv.connections(),
        websockets: network.openSockets(),
        lagMs: { mean: round(lag.mean), p50: round(lag.p50), p99: round(lag.p99), max: round(lag.max) },
      };
      snapshots.push(s);
      log(
        `[${s.elapsedS}s] ${label}: ${s.messages} messages, heap ${s.heapUsedMB} MB (${s.heapAfterGcMB} MB after GC), ` +
          `RSS ${s.rssMB} MB, ${s.connections} connections, ${s.websockets} websockets, lag p99 ${s.lagMs.p99} ms`,
      );
    };

    // The first interval would count the start (migrations) as event-loop lag: begin after it.
    await srv.probe(false);
    await sleep(1000);
    await snapshot('server started', 0);
    for (let i = 0; i < o.initialMembers; i++) await network.join(i < o.steadyMembers);
    log(`${network.members.length} members joined and connected; sending ${o.messages} messages, ${o.concurrency} at a time`);
    await snapshot('members joined', 0);

    const load = await runLoad(network, o, snapshot);
    log(`load done: ${load.acked.size} messages in ${round(load.durationMs / 1000)} s`);
    await snapshot('load done', load.acked.size);

    // Whoever is away comes back (the banned unbanned): the checks see every member who has not left for good.
    for (const back of load.away) await back();
    const fan = await fanOut(network.members, load.acked);
    const decryption = await decryptSample(network.members, load.acked);

    await network.leaveAll();
    // Presence rows go as the server notices the sockets closing: give it a moment.
    const onlineUsers = await settle(async () => (await network.overview()).onlineUsers, 0, 10_000);
    const { totalMessages } = await network.overview();
    await closeIdleHttpConnections();
    const connections = await settle(() => srv.connections(), 0, 15_000);
    await snapshot('members left', load.acked.size);

    const readRows = () => database.read(async (db) => ({ rows: await rowCounts(db), stored: await storedMessages(db) }));
    const whileRunning = database.readableWhileRunning ? await readRows() : null;
    const serverExitCode = await srv.stop();
    const { rows, stored } = whileRunning ?? (await readRows());
    const serverErrors = srv.errorLines();

    const general = [...load.acked.values()].filter((a) => a.conversationId === GENERAL_CONVERSATION).length;
    const loadS = load.durationMs / 1000;
    finished = true;
    return {
      startedAt: new Date(t0).toISOString(),
      durationS: round((Date.now() - t0) / 1000),
      loadDurationS: round(loadS),
      messagesPerSecond: round(load.acked.size / loadS),
      machine: { cpus: os.availableParallelism(), node: process.version, platform: `${os.type()} ${os.release()}` },
      database: database.label,
      options: {
        messages: o.messages,
        initialMembers: o.initialMembers,
        steadyMembers: o.steadyMembers,
        concurrency: o.concurrency,
        directPercent: o.directPercent,
        churnSteps: o.churnSteps,
        checkpoints: o.checkpoints,
        entry: o.entry,
        rateLimitWindowMs: o.rateLimitWindowMs,
        logLevel: o.logLevel,
      },
      members: { initial: o.initialMembers, total: network.members.length, ...network.counts },
      messages: { acknowledged: load.acked.size, general, direct: load.acked.size - general, refused: load.refused },
      snapshots,
      rows,
      rowsRead: whileRunning ? 'while the server ran' : 'after the server stopped',
      decryption: { sampled: decryption.sampled, ok: decryption.ok },
      serverExitCode,
      serverErrors: serverErrors.slice(0, 20),
      invariants: invariants({
        messages: o.messages,
        load,
        members: network.members,
        counts: network.counts,
        unclosed: network.unclosed,
        stillOnline: network.stillOnline,
        fanOut: fan,
        decryption,
        overview: { onlineUsers, totalMessages },
        connections,
        websockets: network.openSockets(),
        rows,
        rowsWhileRunning: whileRunning !== null,
        stored,
        serverErrors,
        serverExitCode,
      }),
    };
  } finally {
    if (!finished && server) {
      for (const m of net?.members ?? []) m.socket?.close();
      await server.stop();
      const errors = server.errorLines();
      if (errors.length) log(`server errors:\n${errors.slice(0, 20).join('\n')}`);
    }
    await database.drop();
  }
}
