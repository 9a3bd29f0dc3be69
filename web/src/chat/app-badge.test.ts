import { describe, expect, it, vi } from 'vitest';
import { clearUnreadBadge, showUnreadOnBadge, type BadgeHost } from './app-badge';

function badgeHost() {
  const calls: string[] = [];
  const nav: BadgeHost = {
    setAppBadge: vi.fn(async (n?: number) => void calls.push(`set ${n}`)),
    clearAppBadge: vi.fn(async () => void calls.push('clear')),
  };
  return { nav, calls };
}

describe('the app badge', () => {
  it('shows the total unread count', () => {
    const { nav, calls } = badgeHost();
    showUnreadOnBadge(7, nav);
    expect(calls).toEqual(['set 7']);
  });

  it('is cleared at zero and on sign-out', () => {
    const { nav, calls } = badgeHost();
    showUnreadOnBadge(0, nav);
    clearUnreadBadge(nav);
    expect(calls).toEqual(['clear', 'clear']);
  });

  it('clears with setAppBadge(0) where clearAppBadge is missing', () => {
    const calls: (number | undefined)[] = [];
    showUnreadOnBadge(0, { setAppBadge: async (n) => void calls.push(n) });
    expect(calls).toEqual([0]);
  });

  it('does nothing without the Badging API, and ignores a refusal', async () => {
    expect(() => showUnreadOnBadge(3, {})).not.toThrow();
    const refused = vi.fn(() => Promise.reject(new DOMException('not installed', 'NotAllowedError')));
    showUnreadOnBadge(3, { setAppBadge: refused });
    await Promise.resolve();
    expect(refused).toHaveBeenCalledWith(3);
  });
});
