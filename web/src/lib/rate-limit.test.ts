import { describe, expect, it } from 'vitest';
import { attemptAllowed, rateLimitStorageKey, recordFailure, type RateLimitStorage } from './rate-limit';

function memoryStorage(): RateLimitStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
  };
}

describe('attemptAllowed / recordFailure', () => {
  it('allows attempts until five failures in a minute, then refuses', () => {
    const storage = memoryStorage();
    let now = 1_000_000;
    const opts = { max: 5, windowMs: 60_000, storage, now: () => now };
    for (let i = 0; i < 5; i++) {
      expect(attemptAllowed('ui_login', opts)).toBe(true);
      recordFailure('ui_login', opts);
      now += 1000;
    }
    expect(attemptAllowed('ui_login', opts)).toBe(false);
  });

  it('counts failures only: any number of checks without a failure stay allowed', () => {
    const storage = memoryStorage();
    const opts = { max: 5, windowMs: 60_000, storage, now: () => 7 };
    for (let i = 0; i < 4; i++) recordFailure('ui_login', opts);
    for (let i = 0; i < 20; i++) expect(attemptAllowed('ui_login', opts)).toBe(true);
  });

  it('allows again once the oldest failure leaves the window', () => {
    const storage = memoryStorage();
    let now = 0;
    const opts = { max: 5, windowMs: 60_000, storage, now: () => now };
    for (let i = 0; i < 5; i++) recordFailure('ui_login', opts);
    now = 59_999;
    expect(attemptAllowed('ui_login', opts)).toBe(false);
    now = 60_000;
    expect(attemptAllowed('ui_login', opts)).toBe(true);
  });

  it('keeps separate counts per action key', () => {
    const storage = memoryStorage();
    const opts = { max: 1, windowMs: 60_000, storage, now: () => 5 };
    recordFailure('ui_login', opts);
    expect(attemptAllowed('ui_login', opts)).toBe(false);
    expect(attemptAllowed('auth_login', opts)).toBe(true);
  });

  it('stores the failures as a JSON list of timestamps under the action key, forgetting old ones', () => {
    const storage = memoryStorage();
    recordFailure('ui_login', { max: 5, windowMs: 60_000, storage, now: () => 42 });
    recordFailure('ui_login', { max: 5, windowMs: 60_000, storage, now: () => 60_100 });
    expect(JSON.parse(storage.data.get(rateLimitStorageKey('ui_login')) ?? 'null')).toEqual([60_100]);
  });

  it('treats a corrupted record as empty', () => {
    const storage = memoryStorage();
    storage.setItem(rateLimitStorageKey('ui_login'), '{not json');
    expect(attemptAllowed('ui_login', { max: 5, windowMs: 60_000, storage, now: () => 1 })).toBe(true);
  });
});
