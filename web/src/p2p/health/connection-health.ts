/**
 * The connection monitor's arithmetic (docs/spec.md §3, §4, §8, §9), kept free of timers and the
 * network so every band, hint and delta is unit-tested: status bands from a check's latency, the
 * loss window of the server checks, and throughput and loss from a peer connection's counters.
 */
import { plural } from '../../lib/format';

/** The server is checked this often (docs/spec.md §9: "connection check every 5 s"). */
export const HEALTH_CHECK_INTERVAL_MS = 5_000;
/** A check still unanswered after this long failed: by then the next one is due. */
export const HEALTH_CHECK_TIMEOUT_MS = 5_000;
/** Upper bounds of the latency bands (docs/spec.md §9): under 50 ms excellent, under 100 good, under 200 poor. */
export const LATENCY_BANDS_MS = { excellent: 50, good: 100, poor: 200 } as const;
/** Packet loss is counted over the last minute of checks (or of room-link samples). */
export const LOSS_WINDOW_SAMPLES = 60_000 / HEALTH_CHECK_INTERVAL_MS;
/** The thresholds of the connection hints (docs/spec.md §8). */
export const HINT_THRESHOLDS = { latencyMs: 500, lossPercent: 5, throughputKbps: 100 } as const;

/** Figures with a decimal while small (a loop-back echo takes well under a millisecond), whole otherwise. */
const figure = (value: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 1 : 0, minimumFractionDigits: value < 10 ? 1 : 0 });
export const formatMs = (ms: number) => `${figure(ms)} ms`;
export const formatKbps = (kbps: number) => `${figure(kbps)} kbit/s`;
export const formatPercent = (percent: number) => `${Number.isInteger(percent) ? percent : figure(percent)} %`;

export type HealthStatus = 'excellent' | 'good' | 'poor' | 'unstable' | 'disconnected';

/** The band of an answered check. */
export function statusForLatency(latencyMs: number): Exclude<HealthStatus, 'disconnected'> {
  if (latencyMs < LATENCY_BANDS_MS.excellent) return 'excellent';
  if (latencyMs < LATENCY_BANDS_MS.good) return 'good';
  if (latencyMs < LATENCY_BANDS_MS.poor) return 'poor';
  return 'unstable';
}

/** Appends one check's result (true: answered) and keeps the last `size` of them. */
export function pushOutcome(window: readonly boolean[], answered: boolean, size = LOSS_WINDOW_SAMPLES): boolean[] {
  return [...window, answered].slice(-size);
}

/** The share of unanswered checks in the window, in percent; null before the first check. */
export function failedShare(window: readonly boolean[]): number | null {
  if (window.length === 0) return null;
  return (100 * window.filter((answered) => !answered).length) / window.length;
}

/** A figure of the monitor: a value, or why there is none. */
export type Figure = { value: number; basis: string } | { value: null; reason: string };

/** Cumulative counters of a peer connection at one instant (`at` in ms, performance.now()). */
export type LinkSample = {
  at: number;
  /** Bytes sent plus received on the transport (or, where no transport stats exist, its data channels). */
  bytes: number | null;
  /** STUN binding requests sent on the selected candidate pair, and the responses received. */
  requests: number | null;
  responses: number | null;
};

export type StatsEntry = Record<string, unknown>;

const num = (entry: StatsEntry | undefined, key: string): number | null => {
  const value = entry?.[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
};
const str = (entry: StatsEntry | undefined, key: string): string | null => {
  const value = entry?.[key];
  return typeof value === 'string' ? value : null;
};
const sum = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);

/** The candidate pair ICE selected, among a peer connection's `getStats()` entries. */
export function selectedPair(entries: readonly StatsEntry[]): StatsEntry | undefined {
  const transport = entries.find((e) => e.type === 'transport');
  // Chromium names the selected pair on the transport; Firefox marks the pair itself.
  const selectedId = str(transport, 'selectedCandidatePairId');
  return (
    (selectedId ? entries.find((e) => e.id === selectedId) : undefined) ??
    entries.find((e) => e.type === 'candidate-pair' && e.selected === true)
  );
}

/**
 * Reads the counters the monitor needs from `RTCPeerConnection.getStats()`'s entries. Entries are
 * checked field by field: browsers differ in what they report, and a missing counter stays null.
 */
export function readLinkSample(entries: Iterable<unknown>, at: number): LinkSample {
  const byId = new Map<string, StatsEntry>();
  for (const entry of entries) {
    if (typeof entry === 'object' && entry !== null && typeof (entry as StatsEntry).id === 'string') {
      byId.set((entry as StatsEntry).id as string, entry as StatsEntry);
    }
  }
  const all = [...byId.values()];
  const transport = all.find((e) => e.type === 'transport');
  let bytes = sum(num(transport, 'bytesSent'), num(transport, 'bytesReceived'));
  if (bytes === null) {
    const channels = all.filter((e) => e.type === 'data-channel');
    bytes =
      channels.length === 0
        ? null
        : channels.reduce<number | null>((total, c) => sum(total, sum(num(c, 'bytesSent'), num(c, 'bytesReceived'))), 0);
  }
  const pair = selectedPair(all);
  return { at, bytes, requests: num(pair, 'requestsSent'), responses: num(pair, 'responsesReceived') };
}

/**
 * Below this many bytes between two samples (one check, 5 s) the room link is idle: nothing is
 * being sent. An idle peer connection still carries its keep-alives (ICE connectivity and consent
 * checks, SCTP heartbeats), about 1.8 kB per check in Chromium (3 kbit/s), which read as a low rate
 * but say nothing about how fast data would move. 8 KiB leaves room for more of them (several
 * candidate pairs); a room in use moves more.
 */
export const LINK_IDLE_BYTES = 8_192;

/** Whether the room link moved fewer than LINK_IDLE_BYTES between its last two samples. */
export function linkIdle(samples: readonly LinkSample[]): boolean {
  const last = samples.at(-1)?.bytes;
  const previous = samples.at(-2)?.bytes;
  if (last === undefined || last === null || previous === undefined || previous === null) return false;
  return last - previous < LINK_IDLE_BYTES;
}

/** Throughput between the last two samples, in kbit/s (bytes both ways). */
export function linkThroughput(samples: readonly LinkSample[]): Figure {
  const last = samples.at(-1);
  const previous = samples.at(-2);
  if (!last || !previous) return { value: null, reason: 'measuring: needs two samples of the room link' };
  if (last.bytes === null || previous.bytes === null)
    return { value: null, reason: 'this browser reports no byte counters for the room link' };
  const ms = last.at - previous.at;
  if (ms <= 0) return { value: null, reason: 'measuring: needs two samples of the room link' };
  // bytes × 8 / ms is bits per millisecond, which is kbit/s.
  const basis = linkIdle(samples)
    ? 'idle: only keep-alives on the room link over the last check'
    : 'bytes both ways on the room link over the last check';
  return { value: (Math.max(0, last.bytes - previous.bytes) * 8) / ms, basis };
}

/**
 * Loss on the room link: the connectivity checks (STUN binding requests) the browser sent on the
 * selected candidate pair over the window without getting a response. A request still in flight
 * at the last sample counts until its response arrives.
 */
export function linkLoss(samples: readonly LinkSample[]): Figure {
  const last = samples.at(-1);
  const first = samples.length > 1 ? samples[0] : undefined;
  if (!last || !first) return { value: null, reason: 'measuring: needs two samples of the room link' };
  if (last.requests === null || last.responses === null || first.requests === null || first.responses === null) {
    return { value: null, reason: 'this browser reports no connectivity-check counters' };
  }
  const sent = last.requests - first.requests;
  if (sent <= 0) return { value: null, reason: 'no connectivity checks on the room link yet' };
  const answered = last.responses - first.responses;
  return {
    value: (100 * Math.max(0, sent - answered)) / sent,
    basis: `unanswered share of ${plural(sent, 'connectivity check')} on the room link, last minute`,
  };
}

/** Everything the monitor shows. `status` is null until the first check has ended. */
export type ConnectionHealth = {
  status: HealthStatus | null;
  /** The last answered check's latency; null when the last check failed or none ended yet. */
  latencyMs: number | null;
  /** Why the last check failed, when it did. */
  failure: string | null;
  throughput: Figure;
  /** The room link carried nothing but keep-alives over the last check (LINK_IDLE_BYTES): its low rate is no warning. */
  linkIdle: boolean;
  packetLoss: Figure;
  /** When the server last answered (Date.now()), or null. */
  lastSeen: number | null;
};

/**
 * Puts the figures together: loss from the room link when there is one and it reports loss,
 * otherwise from the server checks; throughput only on a room link.
 */
export function combineHealth(args: {
  status: HealthStatus | null;
  latencyMs: number | null;
  failure: string | null;
  lastSeen: number | null;
  checks: readonly boolean[];
  linkSamples: readonly LinkSample[] | null;
}): ConnectionHealth {
  const checkLoss = failedShare(args.checks);
  const fromChecks: Figure =
    checkLoss === null
      ? { value: null, reason: 'no check has ended yet' }
      : { value: checkLoss, basis: `unanswered share of ${plural(args.checks.length, 'server check')}, last minute` };
  let throughput: Figure = { value: null, reason: 'join a room to measure' };
  let packetLoss = fromChecks;
  let idle = false;
  if (args.linkSamples) {
    throughput = linkThroughput(args.linkSamples);
    idle = linkIdle(args.linkSamples);
    const loss = linkLoss(args.linkSamples);
    if (loss.value !== null) packetLoss = loss;
  }
  return {
    status: args.status,
    latencyMs: args.latencyMs,
    failure: args.failure,
    throughput,
    linkIdle: idle,
    packetLoss,
    lastSeen: args.lastSeen,
  };
}

export type Hint = { id: 'reconnecting' | 'latency' | 'loss' | 'throughput'; text: string };

/** The hints for what the monitor shows (docs/spec.md §8), most urgent first. */
export function hintsFor(health: ConnectionHealth): Hint[] {
  const hints: Hint[] = [];
  if (health.status === 'disconnected') {
    hints.push({
      id: 'reconnecting',
      text: `Trying to reconnect automatically: the server did not answer (${health.failure ?? 'no answer'}). It is checked again every ${HEALTH_CHECK_INTERVAL_MS / 1000} s, and the chat reconnects by itself once it answers.`,
    });
  } else if (health.status === 'unstable') {
    hints.push({
      id: 'reconnecting',
      text: `Trying to reconnect automatically if the connection drops: the server answers, but takes ${LATENCY_BANDS_MS.poor} ms or more. If this lasts, check your network.`,
    });
  }
  if (health.latencyMs !== null && health.latencyMs > HINT_THRESHOLDS.latencyMs) {
    hints.push({
      id: 'latency',
      text: `The server takes over ${HINT_THRESHOLDS.latencyMs} ms to answer. A wired connection, a stronger Wi-Fi signal or pausing large downloads usually brings this down.`,
    });
  }
  if (health.packetLoss.value !== null && health.packetLoss.value > HINT_THRESHOLDS.lossPercent) {
    hints.push({
      id: 'loss',
      text: `More than ${HINT_THRESHOLDS.lossPercent} % of recent checks went unanswered: the connection, or the server, dropped out now and then. If it keeps happening, a steadier network (wired, or closer to the access point) helps.`,
    });
  }
  // Only while data is moving: an idle link's rate is low because nothing is being sent.
  if (health.throughput.value !== null && !health.linkIdle && health.throughput.value < HINT_THRESHOLDS.throughputKbps) {
    hints.push({
      id: 'throughput',
      text: `Under ${HINT_THRESHOLDS.throughputKbps} kbit/s moved over the room link in the last check while data was being sent. If the room feels slow, the host's upload or your network is the limit.`,
    });
  }
  return hints;
}
