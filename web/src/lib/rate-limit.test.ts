import { describe, expect, it } from 'vitest';
import { rateLimitStorageKey, recordAttempt, type RateLimitStorage } from './rate-limit';

function memoryStorage(): RateLimitStorage & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
  };
}

describe('recordAttempt', () => {
  it('allows five attempts in a minute and refuses the sixth', () => {
    const storage = memoryStorage();
    let now = 1_000_000;
    const opts = { max: 5, windowMs: 60_000, storage, now: () => now };
    for (let i = 0; i < 5; i++) {
      expect(recordAttempt('ui_login', opts)).toBe(true);
      now += 1000;
    }
    expect(recordAttempt('ui_login', opts)).toBe(false);
  });

  it('allows again once the oldest attempt leaves the window', () => {
    const storage = memoryStorage();
    let now = 0;
    const opts = { max: 5, windowMs: 60_000, storage, now: () => now };
    for (let i = 0; i < 5; i++) recordAttempt('ui_login', opts);
    now = 59_999;
    expect(recordAttempt('ui_login', opts)).toBe(false);
    now = 60_000;
    expect(recordAttempt('ui_login', opts)).toBe(true);
  });

  it('keeps separate counts per action key', () => {
    const storage = memoryStorage();
    const opts = { max: 1, windowMs: 60_000, storage, now: () => 5 };
    expect(recordAttempt('ui_login', opts)).toBe(true);
    expect(recordAttempt('ui_login', opts)).toBe(false);
    expect(recordAttempt('auth_login', opts)).toBe(true);
  });

  it('stores the timestamps as a JSON list in localStorage under the action key', () => {
    const storage = memoryStorage();
    recordAttempt('ui_login', { max: 5, windowMs: 60_000, storage, now: () => 42 });
    expect(JSON.parse(storage.data.get(rateLimitStorageKey('ui_login')) ?? 'null')).toEqual([42]);
  });

  it('treats a corrupted record as empty', () => {
    const storage = memoryStorage();
    storage.setItem(rateLimitStorageKey('ui_login'), '{not json');
    expect(recordAttempt('ui_login', { max: 5, windowMs: 60_000, storage, now: () => 1 })).toBe(true);
  });
});
