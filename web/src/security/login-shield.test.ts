import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { escalation, tamper } from './constants';
import { LoginShield, type ShieldActions } from './login-shield';
import type { Detection } from './threat-state';

const d = (type = 'invalid_token_format', severity: Detection['severity'] = 'high'): Detection => ({
  type,
  severity,
  description: type,
  timestamp: 0,
  source: 'login_screen',
});

function shield(relaxed = false) {
  const log: string[] = [];
  let finishWipe = () => {};
  const actions: ShieldActions = {
    record: (x) => void log.push(`record ${x.type}`),
    countermeasure: (name) => void log.push(`countermeasure ${name}`),
    later: (ms, run) => void setTimeout(run, ms),
    decoys: () => void log.push(`decoys at ${Date.now()}`),
    wipe: () => {
      log.push(`wipe at ${Date.now()}`);
      return new Promise((resolve) => (finishWipe = resolve));
    },
    showBreach: () => void log.push(`breach at ${Date.now()}`),
    leave: () => void log.push(`leave at ${Date.now()}`),
  };
  return { shield: new LoginShield(actions, relaxed), log, finishWipe: () => finishWipe() };
}

describe('the escalation rule of both detectors', () => {
  it('records low and medium detections only, strikes on high ones, and runs the emergency on critical ones', () => {
    expect((['low', 'medium', 'high', 'critical'] as const).map(escalation)).toEqual(['record', 'record', 'strike', 'emergency']);
  });
});

describe('login-side escalation (docs/spec.md §4)', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('sends decoys 2 s after the first detection and 4 s after the second, wipes at the third', async () => {
    const s = shield();
    s.shield.detect(d());
    await vi.advanceTimersByTimeAsync(1999);
    expect(s.log.filter((l) => l.startsWith('decoys'))).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.log).toContain('decoys at 2000');

    s.shield.detect(d()); // at 2000
    await vi.advanceTimersByTimeAsync(3999);
    expect(s.log.filter((l) => l.startsWith('decoys'))).toEqual(['decoys at 2000']);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.log).toContain('decoys at 6000');

    s.shield.detect(d()); // at 6000
    expect(s.log).toContain('breach at 6000');
    expect(s.log).toContain('wipe at 6000');
    expect(s.log).toContain('countermeasure browser_wipe');
    s.finishWipe();
    await vi.advanceTimersByTimeAsync(tamper.redirectAfterWipeMs - 1);
    expect(s.log.some((l) => l.startsWith('leave'))).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(s.log).toContain('leave at 9000');
    expect(s.shield.detections).toBe(3);
  });

  it('waits for the wipe to finish before leaving', async () => {
    const s = shield();
    for (let i = 0; i < tamper.threshold; i++) s.shield.detect(d());
    await vi.advanceTimersByTimeAsync(10_000);
    expect(s.log.some((l) => l.startsWith('leave'))).toBe(false);
    s.finishWipe();
    await vi.advanceTimersByTimeAsync(0);
    expect(s.log).toContain('leave at 10000');
  });

  it('records but no longer counts once wiping, and wipes once', async () => {
    const s = shield();
    for (let i = 0; i < tamper.threshold + 2; i++) s.shield.detect(d());
    expect(s.log.filter((l) => l.startsWith('wipe'))).toHaveLength(1);
    expect(s.log.filter((l) => l.startsWith('record'))).toHaveLength(tamper.threshold + 2);
    expect(s.shield.detections).toBe(tamper.threshold);
  });

  it('counts a lasting condition once', () => {
    const s = shield();
    s.shield.detectOnce('debugger', d('debugger_detected'));
    s.shield.detectOnce('debugger', d('debugger_detected'));
    expect(s.shield.detections).toBe(1);
  });

  it('records what extensions cause (medium and low) and never escalates it, however much', async () => {
    const s = shield();
    for (const name of ['fetch', 'XMLHttpRequest.prototype.open', 'XMLHttpRequest.prototype.send']) {
      s.shield.detectOnce(`native:${name}:not_native`, d('modified_native_function', 'medium'));
    }
    for (let i = 0; i < 10; i++) s.shield.detect(d('unauthorized_script_injection', i % 2 ? 'low' : 'medium'));
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.log).toHaveLength(13);
    expect(s.log.every((l) => l.startsWith('record'))).toBe(true);
    expect(s.shield.detections).toBe(0);
  });

  it('counts only strikes towards the threshold: medium detections between them change nothing', async () => {
    const s = shield();
    s.shield.detect(d());
    s.shield.detect(d('unauthorized_script_injection', 'medium'));
    s.shield.detect(d());
    s.shield.detect(d('modified_native_function', 'medium'));
    expect(s.log.some((l) => l.startsWith('wipe'))).toBe(false);
    s.shield.detect(d());
    expect(s.log.filter((l) => l.startsWith('wipe'))).toHaveLength(1);
    expect(s.shield.detections).toBe(tamper.threshold);
  });

  it('wipes at once on a critical detection, as after sign-in, without decoys first', async () => {
    const s = shield();
    s.shield.detect(d('crypto_api_compromised', 'critical'));
    expect(s.log).toEqual(['record crypto_api_compromised', 'countermeasure browser_wipe', 'breach at 0', 'wipe at 0']);
    s.finishWipe();
    await vi.advanceTimersByTimeAsync(tamper.redirectAfterWipeMs);
    expect(s.log).toContain('leave at 3000');
    expect(s.log.some((l) => l.startsWith('decoys'))).toBe(false);
  });

  it('only records on a relaxed host', async () => {
    const s = shield(true);
    for (let i = 0; i < 5; i++) s.shield.detect(d());
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.log.every((l) => l.startsWith('record'))).toBe(true);
  });
});
