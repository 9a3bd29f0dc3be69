import { describe, expect, it } from 'vitest';
import { kbitPerSecond, median, runSteps, verdict, type Outcome, type Step, type TestId, type TestResult } from './p2p-tests';

const step = (id: TestId, needs: TestId[], run: Step['run']): Step => ({ id, name: `test ${id}`, needs, run });
const passed = (value: number): Outcome => ({ status: 'passed', figure: { value, unit: 'ms' }, detail: 'fine' });

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([9, 1, 1, 1, 200])).toBe(1);
  });

  it('refuses no values', () => {
    expect(() => median([])).toThrow();
  });
});

describe('kbitPerSecond and verdict', () => {
  it('turns bytes and milliseconds into kbit/s', () => {
    expect(kbitPerSecond(2 * 1024 * 1024, 1_000)).toBeCloseTo(16_777.216);
    expect(kbitPerSecond(125, 10)).toBe(100);
  });

  it('warns only past the threshold', () => {
    expect(verdict(200, { warnAbove: 200 })).toBe('passed');
    expect(verdict(200.1, { warnAbove: 200 })).toBe('warning');
    expect(verdict(100, { warnBelow: 100 })).toBe('passed');
    expect(verdict(99.9, { warnBelow: 100 })).toBe('warning');
  });
});

describe('runSteps', () => {
  it('runs the steps in sequence, each pending, then running, then its outcome', async () => {
    const seen: string[] = [];
    const snapshots: TestResult[][] = [];
    const results = await runSteps(
      [
        step('signaling', [], async () => {
          seen.push('signaling');
          return passed(3);
        }),
        step('webrtc', [], async () => {
          seen.push('webrtc');
          return { status: 'warning', figure: null, detail: 'slow' };
        }),
      ],
      (r) => snapshots.push(r),
    );
    expect(seen).toEqual(['signaling', 'webrtc']);
    expect(snapshots[0]!.map((r) => r.status)).toEqual(['pending', 'pending']);
    expect(snapshots.map((s) => s.map((r) => r.status).join(','))).toEqual([
      'pending,pending',
      'running,pending',
      'passed,pending',
      'passed,running',
      'passed,warning',
    ]);
    expect(results[0]).toMatchObject({ status: 'passed', figure: { value: 3, unit: 'ms' } });
  });

  it('reports a thrown error as the failure, and fails the steps that need it without running them', async () => {
    let ranDependent = false;
    const results = await runSteps(
      [
        step('webrtc', [], () => Promise.reject(new Error('no WebRTC here'))),
        step('loopback', ['webrtc'], async () => {
          ranDependent = true;
          return passed(1);
        }),
        step('rtt', ['loopback'], async () => passed(1)),
        step('signaling', [], async () => passed(2)),
      ],
      () => undefined,
    );
    expect(ranDependent).toBe(false);
    expect(results.map((r) => [r.id, r.status, r.detail])).toEqual([
      ['webrtc', 'failed', 'no WebRTC here'],
      ['loopback', 'failed', 'Not run: test webrtc failed.'],
      ['rtt', 'failed', 'Not run: test loopback failed.'],
      ['signaling', 'passed', 'fine'],
    ]);
  });

  it('starts no further step and reports nothing more once stopped', async () => {
    const stop = new AbortController();
    let ranNext = false;
    const snapshots: TestResult[][] = [];
    await runSteps(
      [
        step('signaling', [], async (signal) => {
          stop.abort();
          expect(signal.aborted).toBe(true);
          return passed(1);
        }),
        step('webrtc', [], async () => {
          ranNext = true;
          return passed(2);
        }),
      ],
      (r) => snapshots.push(r),
      stop.signal,
    );
    expect(ranNext).toBe(false);
    expect(snapshots.at(-1)!.map((r) => r.status)).toEqual(['running', 'pending']);
  });

  it('runs the steps after a warning', async () => {
    const results = await runSteps(
      [
        step('loopback', [], async () => ({ status: 'warning', figure: { value: 3_000, unit: 'ms' }, detail: 'slow' })),
        step('rtt', ['loopback'], async () => passed(1)),
      ],
      () => undefined,
    );
    expect(results.map((r) => r.status)).toEqual(['warning', 'passed']);
  });
});
