/**
 * Every interval and threshold of the tamper detection and the security monitors
 * (docs/spec.md §4 and §9), in one place. The detectors, the dashboards and their tests read them
 * from here; none is written out anywhere else. (Token format and login-rate constants are the
 * protocol's `limits`.)
 */
import { severityScores, type Severity } from '@enclave/protocol';

export { severityScores };

/** What a detection sets off: nothing but its record, a strike (decoys), or the emergency wipe. */
export type Escalation = 'record' | 'strike' | 'emergency';

/**
 * The one rule of both detectors, the login screen's and the monitor's (docs/security.md §10):
 * a detection escalates by its severity alone. Low and medium ones — what browser extensions
 * commonly cause — are recorded and shown to the member, never answered with decoys or a wipe; a
 * high one is a strike (decoys; on the login screen the third strike wipes); a critical one runs
 * the emergency protocol at once.
 */
export function escalation(severity: Severity): Escalation {
  if (severity === 'critical') return 'emergency';
  return severity === 'high' ? 'strike' : 'record';
}

export const tamper = {
  /** Login side: the third strike (see {@link escalation}) wipes the browser; the first two schedule decoy calls. */
  threshold: 3,
  /** Decoy calls after 2^n seconds, n = the detection's number. */
  countermeasureDelayMs: (attempt: number) => 2 ** attempt * 1000,
  /** After the wipe, the breach screen stays this long before going to /. */
  redirectAfterWipeMs: 3000,
  /** Debugger and developer-tools checks. */
  debuggerCheckIntervalMs: 5000,
  /** A `debugger` statement that takes longer than this means a debugger stopped on it. */
  debuggerThresholdMs: 100,
  /** Outer minus inner window size beyond this means docked developer tools. */
  windowSizeThresholdPx: 160,
  /** Native-function integrity check (login side). */
  nativeIntegrityIntervalMs: 10_000,
  /**
   * Consecutive `debugger` probes that must each exceed the threshold: a real debugger stops on
   * every one, a one-off stall of the machine (GC, a preempted thread) does not repeat at once.
   */
  debuggerConfirmProbes: 2,
} as const;

/** Scheduled checks: a tick later than this many intervals after the last one means checks were missed (throttled or frozen tab). */
export const missedCheckFactor = 2;

export const dashboardDetection = {
  /** Integrity check of the dashboard-side detector. */
  integrityCheckIntervalMs: 5000,
  /** JS heap growth between two checks that counts as a memory spike. */
  memorySpikeBytes: 100 * 1024 * 1024,
  /** A check that itself took longer than this is an execution-time anomaly. */
  executionAnomalyMs: 1000,
  /**
   * Timing threshold (ms) of the detector's own timing probe: a check slower than
   * `executionAnomalyMs` is run again at once, and only a repeat slower than this confirms it.
   */
  timingThresholdMs: 50,
  /** Threat vectors a breach report carries at most (the protocol's limit). */
  maxReportedVectors: 20,
  /** A threat score above this is "under attack". */
  underAttackAbove: 50,
  /** Protection level by threat score: minimal < 10, standard < 30, enhanced < 60, else military. */
  protectionBands: { minimal: 10, standard: 30, enhanced: 60 },
  /** Default life of a notification bubble. */
  notificationMs: 4000,
} as const;

export const liveMonitor = {
  /** Polling while Live. */
  pollIntervalMs: 2000,
  /** Events kept on screen. */
  maxEvents: 50,
  /** Threat vectors listed. */
  lastThreatVectors: 10,
  /** Threat level scale. */
  threatScaleMax: 100,
  /** Decimals of the detection accuracy. */
  accuracyDecimals: 1,
} as const;

export type ProtectionLevel = 'minimal' | 'standard' | 'enhanced' | 'military';

export function protectionLevel(score: number): ProtectionLevel {
  const b = dashboardDetection.protectionBands;
  if (score < b.minimal) return 'minimal';
  if (score < b.standard) return 'standard';
  if (score < b.enhanced) return 'enhanced';
  return 'military';
}

export const isUnderAttack = (score: number): boolean => score > dashboardDetection.underAttackAbove;
