/**
 * The P2P test suite's sequence and verdicts (docs/spec.md §4: each test pending → running →
 * passed, failed or warning, in sequence). The checks themselves are in probes.ts; this part
 * decides order, dependencies and thresholds, and is unit-tested with fake checks.
 */
import { HINT_THRESHOLDS, LATENCY_BANDS_MS } from './connection-health';

export type TestId = 'signaling' | 'webrtc' | 'loopback' | 'rtt' | 'throughput';
export type TestStatus = 'pending' | 'running' | 'passed' | 'failed' | 'warning';
export type Measured = { value: number; unit: 'ms' | 'kbit/s' };

/** What one finished check found. */
export type Outcome = { status: 'passed' | 'warning' | 'failed'; figure: Measured | null; detail: string };

export type TestResult = { id: TestId; name: string; status: TestStatus; figure: Measured | null; detail: string };

/** One check; `run` gives up when `signal` aborts. */
export type Step = { id: TestId; name: string; needs: readonly TestId[]; run: (signal: AbortSignal) => Promise<Outcome> };

/** Round trips (over the socket or the loop-back) slower than the monitor's unstable band are a warning. */
export const WARN_RTT_MS = LATENCY_BANDS_MS.poor;
/** Loop-back throughput under the monitor's throughput hint is a warning. */
export const WARN_THROUGHPUT_KBPS = HINT_THRESHOLDS.throughputKbps;
/** A loop-back channel taking longer than this to open is a warning; ten times as long fails it. */
export const WARN_LOOPBACK_OPEN_MS = 2_000;
export const LOOPBACK_OPEN_TIMEOUT_MS = 10 * WARN_LOOPBACK_OPEN_MS;
/** Echoes for the round-trip time; the median is the figure, so one late echo does not decide it. */
export const RTT_ECHOES = 20;
/** Bytes sent for the throughput, in chunks small enough for every browser's data channels. */
export const THROUGHPUT_BYTES = 2 * 1024 * 1024;
export const THROUGHPUT_CHUNK_BYTES = 16 * 1024;

/** The names of the tests, in the order they run. */
export const TEST_NAMES: Record<TestId, string> = {
  signaling: 'Signaling reachable',
  webrtc: 'WebRTC available',
  loopback: 'Data-channel loop-back',
  rtt: 'Round-trip time',
  throughput: 'Throughput',
};

export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** kbit/s for `bytes` in `ms` (bits per millisecond). */
export function kbitPerSecond(bytes: number, ms: number): number {
  return (bytes * 8) / Math.max(ms, Number.EPSILON);
}

/** Passed, or a warning past the threshold (above `warnAbove` or below `warnBelow`). */
export function verdict(value: number, limit: { warnAbove: number } | { warnBelow: number }): 'passed' | 'warning' {
  if ('warnAbove' in limit) return value > limit.warnAbove ? 'warning' : 'passed';
  return value < limit.warnBelow ? 'warning' : 'passed';
}

/** What each test checks, and when it warns. */
export const TEST_DESCRIPTIONS: Record<TestId, string> = {
  signaling: `A ping over your real-time connection to the server, and the server's STUN/TURN list. Warning over ${WARN_RTT_MS} ms.`,
  webrtc: 'This browser creates a peer connection, a data channel and an offer.',
  loopback: `Two peer connections in this page connect to each other, with no server in between. Warning over ${WARN_LOOPBACK_OPEN_MS / 1000} s, failed after ${LOOPBACK_OPEN_TIMEOUT_MS / 1000} s.`,
  rtt: `The median of ${RTT_ECHOES} echoes over the loop-back channel. Warning over ${WARN_RTT_MS} ms.`,
  throughput: `${THROUGHPUT_BYTES / 1024 / 1024} MiB sent over the loop-back channel. Warning under ${WARN_THROUGHPUT_KBPS} kbit/s.`,
};

export const pendingResults = (steps: readonly Pick<Step, 'id' | 'name'>[]): TestResult[] =>
  steps.map((s) => ({ id: s.id, name: s.name, status: 'pending', figure: null, detail: 'Not run yet' }));

/**
 * Runs the steps one after another, reporting every change. A step whose prerequisite failed is
 * not run and fails, saying which; a warning does not stop the steps that build on it. Once
 * `signal` aborts (the page was left), no further step starts and nothing more is reported.
 */
export async function runSteps(
  steps: readonly Step[],
  onChange: (results: TestResult[]) => void,
  signal: AbortSignal = new AbortController().signal,
): Promise<TestResult[]> {
  let results = pendingResults(steps);
  const update = (id: TestId, change: Partial<TestResult>) => {
    results = results.map((r) => (r.id === id ? { ...r, ...change } : r));
    onChange(results);
  };
  onChange(results);
  for (const step of steps) {
    if (signal.aborted) break;
    const failedNeed = step.needs.map((id) => results.find((r) => r.id === id)).find((r) => r?.status === 'failed');
    if (failedNeed) {
      update(step.id, { status: 'failed', detail: `Not run: ${failedNeed.name} failed.` });
      continue;
    }
    update(step.id, { status: 'running', detail: 'Running…' });
    let outcome: Outcome;
    try {
      outcome = await step.run(signal);
    } catch (error) {
      outcome = { status: 'failed', figure: null, detail: error instanceof Error ? error.message : String(error) };
    }
    if (signal.aborted) break;
    update(step.id, outcome);
  }
  return results;
}
