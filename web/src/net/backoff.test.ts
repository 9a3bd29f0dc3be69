import { describe, expect, it } from 'vitest';
import {
  RECONNECT_FAST_ATTEMPTS,
  RECONNECT_FAST_MAX_MS,
  RECONNECT_FAST_MIN_MS,
  RECONNECT_MAX_MS,
  RECONNECT_MIN_MS,
  randomUnit,
  reconnectDelay,
} from './backoff';

const spread = [0, 0.25, 0.5, 0.75, 0.999_999];

describe('reconnectDelay', () => {
  it('waits at most 1 s, spread over [250 ms, 1 s], while the last connection was healthy', () => {
    for (let attempt = 0; attempt < RECONNECT_FAST_ATTEMPTS; attempt++) {
      for (const random of spread) {
        const delay = reconnectDelay(attempt, random, true);
        expect(delay).toBeGreaterThanOrEqual(RECONNECT_FAST_MIN_MS);
        expect(delay).toBeLessThanOrEqual(RECONNECT_FAST_MAX_MS);
      }
    }
    expect(reconnectDelay(0, 0, true)).toBe(250);
    expect(reconnectDelay(0, 0.5, true)).toBe(625);
    expect(reconnectDelay(0, 0.999_999, true)).toBe(1000);
  });

  it('doubles after the fast attempts, from [1 s, 2 s] to a 10 s ceiling', () => {
    const n = RECONNECT_FAST_ATTEMPTS;
    expect([0, 1, 2, 3, 10].map((k) => reconnectDelay(n + k, 0.5, true))).toEqual([1500, 3000, 6000, 7500, 7500]);
    expect(reconnectDelay(n + 10, 0.999_999, true)).toBe(RECONNECT_MAX_MS);
  });

  it('uses the slow back-off at once after a refusal (not healthy)', () => {
    expect([0, 1, 2, 3].map((k) => reconnectDelay(k, 0.5))).toEqual([1500, 3000, 6000, 7500]);
    expect(reconnectDelay(0, 0)).toBe(RECONNECT_MIN_MS);
  });

  it('stays within [250 ms, 10 s] however many attempts failed', () => {
    for (const healthy of [true, false]) {
      for (const attempt of [0, 5, 29, 30, 31, 100, 1_000_000]) {
        for (const random of spread) {
          const delay = reconnectDelay(attempt, random, healthy);
          expect(delay).toBeGreaterThanOrEqual(RECONNECT_FAST_MIN_MS);
          expect(delay).toBeLessThanOrEqual(RECONNECT_MAX_MS);
        }
      }
    }
  });

  it('spreads clients that failed together', () => {
    expect(reconnectDelay(0, 0, true)).toBeLessThan(reconnectDelay(0, 0.99, true));
    expect(reconnectDelay(3, 0)).toBeLessThan(reconnectDelay(3, 0.99));
  });
});

describe('randomUnit', () => {
  it('returns numbers in [0, 1)', () => {
    for (let i = 0; i < 100; i++) {
      const r = randomUnit();
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThan(1);
    }
  });
});
