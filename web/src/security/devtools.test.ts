import { describe, expect, it } from 'vitest';
import { tamper } from './constants';
import { debuggerStopped, looksDocked, type WindowGeometry } from './devtools';

/** A clock that a probe advances by `stops[i]` ms on its i-th call. */
function probeClock(stops: number[]) {
  let t = 0;
  let calls = 0;
  return { now: () => t, probe: () => void (t += stops[calls++] ?? 0), calls: () => calls };
}

describe('debugger probe', () => {
  it('does not trip when the statement takes no time (no developer tools)', () => {
    const c = probeClock([0, 0]);
    expect(debuggerStopped(c.now, c.probe)).toBe(false);
    expect(c.calls()).toBe(1);
  });

  it('does not trip on one stall: the next probe is quick', () => {
    const c = probeClock([tamper.debuggerThresholdMs + 400, 0]);
    expect(debuggerStopped(c.now, c.probe)).toBe(false);
  });

  it('trips when every probe stops longer than the threshold', () => {
    const c = probeClock([2000, 1500]);
    expect(debuggerStopped(c.now, c.probe)).toBe(true);
    expect(c.calls()).toBe(tamper.debuggerConfirmProbes);
  });

  it('treats exactly the threshold as no stop', () => {
    const c = probeClock([tamper.debuggerThresholdMs, tamper.debuggerThresholdMs]);
    expect(debuggerStopped(c.now, c.probe)).toBe(false);
  });
});

describe('docked developer tools geometry', () => {
  const desktop: WindowGeometry = {
    outerWidth: 1440,
    outerHeight: 900,
    innerWidth: 1440,
    innerHeight: 820,
    finePointer: true,
    pinchScale: 1,
  };

  it('is not docked in an ordinary window, nor in headless Chromium', () => {
    expect(looksDocked(desktop)).toBe(false);
    expect(looksDocked({ ...desktop, outerWidth: 1280, outerHeight: 720, innerWidth: 1280, innerHeight: 720 })).toBe(false);
  });

  it('is docked when exactly one side lost more than 160 px', () => {
    expect(looksDocked({ ...desktop, innerWidth: 1000 })).toBe(true);
    expect(looksDocked({ ...desktop, innerHeight: 500 })).toBe(true);
  });

  it('is not docked under page zoom (both sides change) or on touch screens', () => {
    expect(looksDocked({ ...desktop, innerWidth: 720, innerHeight: 410 })).toBe(false);
    expect(looksDocked({ ...desktop, innerWidth: 1000, finePointer: false })).toBe(false);
    expect(looksDocked({ ...desktop, innerWidth: 1000, pinchScale: 1.5 })).toBe(false);
    expect(looksDocked({ ...desktop, outerWidth: 0, outerHeight: 0 })).toBe(false);
  });
});
