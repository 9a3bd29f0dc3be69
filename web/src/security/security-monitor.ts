/**
 * The hidden security monitor, on every screen but the login screen (docs/spec.md §4 "Tamper
 * detection (dashboard side)"): an integrity check every 5 s, each finding recorded in the threat
 * store, escalating by the login screen's rule ({@link escalation}). A critical finding runs the
 * emergency protocol once: wipe the browser, report to the server, show the breach screen, and go
 * to / 3 s later (a full load, so the member's keys leave memory too). A high one sends a decoy
 * call after 2^n s; low and medium ones are only recorded. On a relaxed host findings are recorded
 * and nothing else happens.
 */
import { breachReportSchema, type BreachReport } from '@enclave/protocol';
import type { CheckEnv } from './check-env';
import { dashboardDetection, escalation, missedCheckFactor, tamper } from './constants';
import { CRYPTO_SELF_TEST_KEY, cryptoSelfTestDetection, detection, nativeDetection, nativeKey, scriptDetection } from './detections';
import { countermeasures, type ShieldActions } from './login-shield';
import { cryptoSelfTest, findNativeTampering } from './natives';
import { everyInterval } from './schedule';
import { detectionTexts, detectionTypes } from './tamper-texts';
import type { Detection, ProtectionFeature, ThreatState } from './threat-state';

const SOURCE = 'security_monitor';
const MB = 1024 * 1024;

export type MonitorActions = Omit<ShieldActions, 'decoys'> & {
  /** The n-th decoy call (fire and forget). */
  decoy(n: number): void;
  /** Tells the server; never rejects. */
  report(report: BreachReport): Promise<void>;
  state(): ThreatState;
};

/** The breach report of the emergency protocol: what was found, no addresses (the server sees its own). */
export function breachReport(trigger: Detection, state: ThreatState, now: number): BreachReport {
  const vectors = state.detections.slice(-dashboardDetection.maxReportedVectors).map((d) => ({
    type: d.type,
    severity: d.severity,
    description: d.description.slice(0, 300),
    timestamp: new Date(d.timestamp).toISOString(),
    ...(d.source ? { source: d.source.slice(0, 100) } : {}),
  }));
  return breachReportSchema.parse({
    reason: trigger.description.slice(0, 300),
    timestamp: new Date(now).toISOString(),
    threatVectors: vectors,
    securityMetrics: { threatLevel: state.threatLevel, detections: state.counts.total },
  });
}

export class SecurityMonitor {
  private decoysSent = 0;
  private emergencyStarted = false;
  private readonly reported = new Set<string>();

  constructor(
    private readonly actions: MonitorActions,
    readonly relaxed: boolean,
    private readonly wallClock: () => number,
  ) {}

  /** True once the emergency protocol has started (it runs at most once per page). */
  get inEmergency(): boolean {
    return this.emergencyStarted;
  }

  detectOnce(key: string, d: Detection): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.detect(d);
  }

  detect(d: Detection): void {
    this.actions.record(d);
    if (this.relaxed || this.emergencyStarted) return;
    const step = escalation(d.severity);
    if (step === 'emergency') return this.emergency(d);
    if (step === 'record') return;
    this.decoysSent += 1;
    const n = this.decoysSent;
    this.actions.countermeasure(countermeasures.decoys);
    this.actions.later(tamper.countermeasureDelayMs(n), () => this.actions.decoy(n));
  }

  private emergency(trigger: Detection): void {
    this.emergencyStarted = true;
    this.actions.countermeasure(countermeasures.wipe);
    this.actions.countermeasure(countermeasures.report);
    this.actions.showBreach();
    const report = breachReport(trigger, this.actions.state(), this.wallClock());
    const shown = new Promise<void>((resolve) => this.actions.later(tamper.redirectAfterWipeMs, resolve));
    const wipedAndReported = this.actions.wipe().then(() => this.actions.report(report));
    void Promise.all([wipedAndReported, shown]).then(() => this.actions.leave());
  }
}

/**
 * Times `run` and says whether it ran abnormally long: longer than the execution-anomaly bound, and
 * still longer than the timing threshold when run again at once. A breakpoint or an instrumented
 * function slows every run; a one-off stall of a busy machine does not repeat within microseconds.
 */
export function confirmedSlow(run: () => void, now: () => number): number | null {
  const start = now();
  run();
  const took = now() - start;
  if (took <= dashboardDetection.executionAnomalyMs) return null;
  const again = now();
  run();
  return now() - again > dashboardDetection.timingThresholdMs ? took : null;
}

/** Growth of the script heap between two checks, counted only when the checks were on time. */
export function memorySpikeMb(before: number | null, after: number | null, elapsedMs: number): number | null {
  if (before === null || after === null) return null;
  if (elapsedMs >= dashboardDetection.integrityCheckIntervalMs * missedCheckFactor) return null;
  const growth = after - before;
  return growth > dashboardDetection.memorySpikeBytes ? Math.round(growth / MB) : null;
}

/** Starts the monitor's checks; returns the function that stops them. */
export function startMonitorChecks(monitor: SecurityMonitor, env: CheckEnv, onChecked: (ran: boolean) => void): () => void {
  let lastAt = env.clock.now();
  let lastHeap = env.heapBytes();
  const integrityCheck = () => {
    let findings = findNativeTampering(env.host, env.captured, env.sourceOf);
    const took = confirmedSlow(
      () => {
        findings = findNativeTampering(env.host, env.captured, env.sourceOf);
      },
      () => env.clock.now(),
    );
    for (const f of findings) monitor.detectOnce(nativeKey(f), nativeDetection(f, SOURCE, env.wallClock()));
    if (took !== null) {
      monitor.detect(
        detection(detectionTypes.executionAnomaly, 'medium', detectionTexts.executionAnomaly(Math.round(took)), SOURCE, env.wallClock()),
      );
    }

    const now = env.clock.now();
    const heap = env.heapBytes();
    const spike = memorySpikeMb(lastHeap, heap, now - lastAt);
    lastAt = now;
    lastHeap = heap;
    if (spike !== null)
      monitor.detect(detection(detectionTypes.memorySpike, 'medium', detectionTexts.memorySpike(spike), SOURCE, env.wallClock()));

    void cryptoSelfTest(env.crypto).then((ok) => {
      if (!ok) monitor.detectOnce(CRYPTO_SELF_TEST_KEY, cryptoSelfTestDetection(SOURCE, env.wallClock()));
    });
  };
  const stopChecks = everyInterval(dashboardDetection.integrityCheckIntervalMs, integrityCheck, onChecked, env.clock, env.timers);
  const stopWatching = env.watchScripts((_element, src) => monitor.detect(scriptDetection(src, env.origin, SOURCE, env.wallClock())));
  return () => {
    stopChecks();
    stopWatching();
  };
}

/**
 * What the detector running on a screen watches: native functions (function integrity), the
 * network ones among them — fetch, XMLHttpRequest, WebSocket — (network analysis), script elements
 * (DOM monitoring) and, off the login screen where the browser exposes its heap size, memory.
 */
export function runningFeatures(onLoginScreen: boolean, env: Pick<CheckEnv, 'heapBytes'>): ProtectionFeature[] {
  const memory: ProtectionFeature[] = !onLoginScreen && env.heapBytes() !== null ? ['memory_protection'] : [];
  return ['function_integrity', ...memory, 'dom_monitoring', 'network_analysis'];
}
