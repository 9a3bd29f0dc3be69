import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { everyInterval, missedChecks } from './schedule';

describe('scheduled checks', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('counts a late tick as run, and only whole intervals skipped as missed', () => {
    expect(missedChecks(5000, 5000)).toBe(0);
    expect(missedChecks(9999, 5000)).toBe(0);
    expect(missedChecks(10_500, 5000)).toBe(1);
    expect(missedChecks(60_000, 5000)).toBe(11);
  });

  it('runs the check every interval and reports each due check', () => {
    const check = vi.fn();
    const checked: boolean[] = [];
    const clock = { now: () => Date.now() };
    const timers = {
      setInterval: (run: () => void, ms: number) => setInterval(run, ms) as unknown as number,
      clearInterval: (id: number) => clearInterval(id),
    };
    const stop = everyInterval(5000, check, (ran) => checked.push(ran), clock, timers);
    vi.advanceTimersByTime(15_000);
    expect(check).toHaveBeenCalledTimes(3);
    expect(checked).toEqual([true, true, true]);
    stop();
    vi.advanceTimersByTime(15_000);
    expect(check).toHaveBeenCalledTimes(3);
  });
});
