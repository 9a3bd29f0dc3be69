import { describe, expect, it } from 'vitest';
import { formatUsd } from './format';

describe('formatUsd', () => {
  it('shows whole dollars without cents', () => {
    expect(formatUsd(0)).toBe('$0');
    expect(formatUsd(1250)).toBe('$1,250');
  });

  it('shows cents when there are any', () => {
    expect(formatUsd(30.5)).toBe('$30.50');
  });
});
