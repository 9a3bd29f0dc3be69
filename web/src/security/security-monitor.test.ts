import { breachReportSchema, type BreachReport } from '@enclave/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckEnv } from './check-env';
import { dashboardDetection, tamper } from './constants';
import { captureNatives, WATCHED } from './natives';
import {
  SecurityMonitor,
  breachReport,
  confirmedSlow,
  memorySpikeMb,
  runningFeatures,
  startMonitorChecks,
  type MonitorActions,
} from './security-monitor';
import { threatStore, type Detection } from './threat-state';

const d = (severity: Detection['severity'], type = 'modified_native_function'): Detection => ({
  type,
  severity,
  description: `${type} (${severity})`,
  timestamp: Date.now(),
  source: 'security_monitor',
});

function monitor(relaxed = false) {
  const log: string[] = [];
  const reports: BreachReport[] = [];
  const actions: MonitorActions = {
    record: (x) => threatStore.record(x),
    countermeasure: (name) => threatStore.countermeasure(name),
    later: (ms, run) => void setTimeout(run, ms),
    decoy: (n) => void log.push(`decoy ${n} at ${Date.now()}`),
    wipe: async () => void log.push(`wipe at ${Date.now()}`),
    report: async (r) => void reports.push(r),
    showBreach: () => void log.push(`breach at ${Date.now()}`),
    leave: () => void log.push(`leave at ${Date.now()}`),
    state: () => threatStore.get(),
  };
  return { monitor: new SecurityMonitor(actions, relaxed, () => Date.now()), log, reports };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 1_700_000_000_000 });
  threatStore.reset();
});
afterEach(() => void vi.useRealTimers());

describe('dashboard-side monitor (docs/spec.md §4)', () => {
  it('answers each high detection with a decoy after 2^n s', async () => {
    const m = monitor();
    const t0 = Date.now();
    m.monitor.detect(d('high'));
    m.monitor.detect(d('high'));
    await vi.advanceTimersByTimeAsync(4000);
    expect(m.log).toEqual([`decoy 1 at ${t0 + 2000}`, `decoy 2 at ${t0 + 4000}`]);
    expect(threatStore.get().counts).toMatchObject({ total: 2, high: 2 });
    expect(threatStore.get().countermeasures).toEqual(['decoy_calls']);
  });

  it('only records low and medium detections (what extensions cause), however many', async () => {
    const m = monitor();
    for (let i = 0; i < 10; i++) m.monitor.detect(d(i % 2 ? 'low' : 'medium', 'unauthorized_script_injection'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(m.log).toEqual([]);
    expect(m.reports).toEqual([]);
    expect(threatStore.get().counts).toMatchObject({ total: 10, medium: 5, low: 5 });
    expect(threatStore.get().countermeasures).toEqual([]);
  });

  it('runs the emergency protocol once on a critical detection: wipe, report, breach screen, / after 3 s', async () => {
    const m = monitor();
    const t0 = Date.now();
    m.monitor.detect(d('medium'));
    m.monitor.detect(d('critical', 'crypto_api_compromised'));
    m.monitor.detect(d('critical', 'function_integrity_violation'));
    await vi.advanceTimersByTimeAsync(tamper.redirectAfterWipeMs);
    expect(m.log).toEqual([`breach at ${t0}`, `wipe at ${t0}`, `leave at ${t0 + 3000}`]);
    expect(m.reports).toHaveLength(1);
    const report = m.reports[0]!;
    expect(breachReportSchema.safeParse(report).success).toBe(true);
    expect(report.reason).toBe('crypto_api_compromised (critical)');
    expect(report.threatVectors.map((v) => v.type)).toEqual(['modified_native_function', 'crypto_api_compromised']);
    expect(report.securityMetrics).toEqual({ threatLevel: 18, detections: 2 });
    expect(report.addresses).toBeUndefined();
    expect(m.monitor.inEmergency).toBe(true);
    expect(threatStore.get().counts.total).toBe(3);
  });

  it('only records on a relaxed host', async () => {
    const m = monitor(true);
    m.monitor.detect(d('critical'));
    m.monitor.detect(d('high'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(m.log).toEqual([]);
    expect(m.reports).toEqual([]);
    expect(threatStore.get().counts.total).toBe(2);
  });

  it('keeps a breach report within the protocol limits', () => {
    for (let i = 0; i < 30; i++) threatStore.record({ ...d('low'), description: 'x'.repeat(400) });
    const report = breachReport(d('critical'), threatStore.get(), Date.now());
    expect(report.threatVectors).toHaveLength(dashboardDetection.maxReportedVectors);
    expect(report.securityMetrics.threatLevel).toBe(30);
  });
});

describe('timing and memory', () => {
  it('calls a check anomalous only when it is very slow and its immediate repeat is slow too', () => {
    let t = 0;
    const runs = (durations: number[]) => {
      let i = 0;
      return () => void (t += durations[i++] ?? 0);
    };
    const now = () => t;
    expect(confirmedSlow(runs([3]), now)).toBeNull();
    expect(confirmedSlow(runs([5000, 1]), now)).toBeNull();
    expect(confirmedSlow(runs([5000, dashboardDetection.timingThresholdMs]), now)).toBeNull();
    expect(confirmedSlow(runs([5000, 2000]), now)).toBe(5000);
    expect(confirmedSlow(runs([dashboardDetection.executionAnomalyMs, 2000]), now)).toBeNull();
  });

  it('calls heap growth over 100 MB between on-time checks a spike, nothing else', () => {
    const MB = 1024 * 1024;
    const interval = dashboardDetection.integrityCheckIntervalMs;
    expect(memorySpikeMb(50 * MB, 160 * MB, interval)).toBe(110);
    expect(memorySpikeMb(50 * MB, 140 * MB, interval)).toBeNull();
    expect(memorySpikeMb(50 * MB, 300 * MB, interval * 12)).toBeNull();
    expect(memorySpikeMb(null, 300 * MB, interval)).toBeNull();
    expect(memorySpikeMb(300 * MB, 20 * MB, interval)).toBeNull();
  });
});

describe('the monitor on a page', () => {
  function page() {
    const subtle = Object.fromEntries(WATCHED.filter((w) => w.path[1] === 'subtle' && w.path[2]).map((w) => [w.path[2], Math.max]));
    return {
      fetch: Math.max,
      XMLHttpRequest: { prototype: { open: Math.min, send: Math.abs } },
      WebSocket: Math.floor,
      crypto: { getRandomValues: Math.ceil, subtle },
      Function: { prototype: { toString: Math.round } },
    };
  }

  function env(host: object, heap: () => number | null = () => null): CheckEnv {
    return {
      host,
      captured: captureNatives(host),
      sourceOf: (fn) => Function.prototype.toString.call(fn),
      crypto: globalThis.crypto,
      clock: { now: () => Date.now() },
      timers: { setInterval: (run, ms) => setInterval(run, ms) as unknown as number, clearInterval: (id) => clearInterval(id) },
      wallClock: () => Date.now(),
      geometry: () => ({ outerWidth: 1280, outerHeight: 720, innerWidth: 1280, innerHeight: 720, finePointer: true, pinchScale: 1 }),
      heapBytes: heap,
      origin: 'http://127.0.0.1',
      watchScripts: () => () => undefined,
    };
  }

  it('finds nothing on an untouched page, however long it runs, and counts its checks', async () => {
    const m = monitor();
    const stop = startMonitorChecks(
      m.monitor,
      env(page(), () => 40 * 1024 * 1024),
      (ran) => threatStore.checked(ran),
    );
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    stop();
    expect(threatStore.get().counts.total).toBe(0);
    expect(threatStore.get().checks).toEqual({ due: 120, run: 120 });
    expect(m.log).toEqual([]);
  });

  it("records an extension's wrappers of fetch and XMLHttpRequest, made before the app loaded, and sends nothing", async () => {
    const m = monitor();
    const host = page();
    const { fetch } = host;
    const { open, send } = host.XMLHttpRequest.prototype;
    host.fetch = (...args: number[]) => fetch(...args);
    host.XMLHttpRequest.prototype.open = (...args: number[]) => open(...args);
    host.XMLHttpRequest.prototype.send = (x: number) => send(x);
    const stop = startMonitorChecks(m.monitor, env(host), (ran) => threatStore.checked(ran));
    await vi.advanceTimersByTimeAsync(60_000);
    stop();
    expect(threatStore.get().detections.map((x) => [x.type, x.severity])).toEqual(Array(3).fill(['modified_native_function', 'medium']));
    expect(m.log).toEqual([]);
    expect(m.reports).toEqual([]);
  });

  it('reports WebCrypto replaced while the page runs once, as critical', async () => {
    const m = monitor();
    const host = page();
    const stop = startMonitorChecks(m.monitor, env(host), (ran) => threatStore.checked(ran));
    Reflect.set(host.crypto.subtle, 'digest', async () => new ArrayBuffer(32));
    await vi.advanceTimersByTimeAsync(30_000);
    stop();
    expect(threatStore.get().detections.map((x) => [x.type, x.severity])).toEqual([['crypto_api_compromised', 'critical']]);
    expect(m.reports).toHaveLength(1);
  });
});

describe('runningFeatures', () => {
  it('names every part the monitor runs, memory only where the browser exposes its heap', () => {
    expect(runningFeatures(false, { heapBytes: () => 1 })).toEqual([
      'function_integrity',
      'memory_protection',
      'dom_monitoring',
      'network_analysis',
    ]);
    expect(runningFeatures(false, { heapBytes: () => null })).toEqual(['function_integrity', 'dom_monitoring', 'network_analysis']);
    // The login side checks native functions and scripts, not memory.
    expect(runningFeatures(true, { heapBytes: () => 1 })).toEqual(['function_integrity', 'dom_monitoring', 'network_analysis']);
  });
});
