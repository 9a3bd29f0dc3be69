import { afterEach, describe, expect, it, vi } from 'vitest';
import { dayKey, formatDate, formatDateTime, formatMessageTime, formatUsd, plural, shortKey } from './format';

describe('formatUsd', () => {
  it('shows whole dollars without cents', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(1250)).toBe('$1,250');
  });

  it('shows cents when there are any', () => {
    expect(formatUsd(30.5)).toBe('$30.50');
  });

  it('shows a dash for no amount', () => {
    expect(formatUsd(null)).toBe('—');
  });
});

describe('formatDate', () => {
  it('says "Never" for no date, or the text it is given', () => {
    expect(formatDate(null)).toBe('Never');
    expect(formatDate(null, '—')).toBe('—');
  });

  it('passes a value that is no date through', () => {
    expect(formatDate('soon')).toBe('soon');
  });
});

describe('formatDateTime', () => {
  it('shows a dash for no date', () => {
    expect(formatDateTime(null)).toBe('—');
  });
});

describe('shortKey', () => {
  const key = '0123456789abcdef'.repeat(4);

  it('keeps the first 8 and the last 8 characters by default', () => {
    expect(shortKey(key)).toBe('01234567…89abcdef');
  });

  it('keeps a shorter tail when asked', () => {
    expect(shortKey(key, 4)).toBe('01234567…cdef');
  });

  it('leaves a short key whole', () => {
    expect(shortKey('0123456789abcdef')).toBe('0123456789abcdef');
  });
});

describe('plural', () => {
  it('counts one and many', () => {
    expect(plural(1, 'key')).toBe('1 key');
    expect(plural(3, 'key')).toBe('3 keys');
    expect(plural(0, 'access key')).toBe('0 access keys');
  });
});

describe('formatMessageTime', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  const hourMinute = { hour: '2-digit', minute: '2-digit' } as const;

  it('shows the time alone for a message of today', () => {
    const date = new Date(2026, 10, 25, 14, 5);
    expect(formatMessageTime(date.toISOString(), dayKey(date))).toBe(date.toLocaleTimeString([], hourMinute));
  });

  it('shows the date before the time on another day', () => {
    const date = new Date(2026, 10, 24, 23, 59);
    const today = dayKey(new Date(2026, 10, 25, 0, 1));
    expect(formatMessageTime(date.toISOString(), today)).toBe(`${date.toLocaleDateString()} ${date.toLocaleTimeString([], hourMinute)}`);
  });

  it('reuses its formatters: none is built per message', () => {
    const built = vi.spyOn(Intl, 'DateTimeFormat');
    const perCall = [vi.spyOn(Date.prototype, 'toLocaleTimeString'), vi.spyOn(Date.prototype, 'toLocaleDateString')];
    const today = dayKey(new Date(2026, 10, 25));
    for (let minute = 0; minute < 100; minute++)
      formatMessageTime(new Date(2026, 10, 24 + (minute % 2), 9, minute % 60).toISOString(), today);
    expect(built).not.toHaveBeenCalled();
    for (const spy of perCall) expect(spy).not.toHaveBeenCalled();
  });

  it('gives back a timestamp that is not a date as it is', () => {
    expect(formatMessageTime('not a date')).toBe('not a date');
  });
});
