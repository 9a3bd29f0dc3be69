import { describe, expect, it } from 'vitest';
import { RECONNECT_MAX_MS, RECONNECT_MIN_MS, randomUnit, reconnectDelay } from './backoff';

describe('reconnectDelay', () => {
  it('starts at about one second and doubles', () => {
    expect(reconnectDelay(0, 0.5)).toBe(1000);
    expect(reconnectDelay(1, 0.5)).toBe(2000);
    expect(reconnectDelay(2, 0.5)).toBe(4000);
    expect(reconnectDelay(4, 0.5)).toBe(16_000);
  });

  it('never goes above thirty seconds however many attempts failed', () => {
    for (const random of [0, 0.5, 0.999]) {
      expect(reconnectDelay(5, random)).toBeLessThanOrEqual(RECONNECT_MAX_MS);
      expect(reconnectDelay(1000, random)).toBeLessThanOrEqual(RECONNECT_MAX_MS);
    }
  });

  it('never goes below one second', () => {
    expect(reconnectDelay(0, 0)).toBe(RECONNECT_MIN_MS);
  });

  it('spreads clients that failed together', () => {
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
