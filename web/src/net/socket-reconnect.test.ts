import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RECONNECT_FAST_ATTEMPTS, RECONNECT_MAX_MS } from './backoff';
import { setup } from './socket-fakes';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

type Device = ReturnType<typeof setup>;

/**
 * The server shuts down (1001) and is down for `downMs`: every connection the device opens
 * meanwhile is refused before it opens; the first one opened after that authenticates. Returns
 * the times of the device's attempts, from the shutdown.
 */
async function restart(t: Device, downMs: number): Promise<number[]> {
  const attempts: number[] = [];
  const start = Date.now();
  t.latest().drop(1001);
  for (;;) {
    const ws = t.latest();
    if (ws.readyState === 0) {
      const at = Date.now() - start;
      attempts.push(at);
      if (at >= downMs) {
        t.authenticate();
        return attempts;
      }
      ws.drop();
    }
    await vi.advanceTimersToNextTimerAsync();
  }
}

function gaps(times: number[]): number[] {
  return times.slice(1).map((time, i) => time - (times[i] ?? 0));
}

describe('RealtimeSocket reconnecting after a restart', () => {
  it('brings every device back within a second of a 4 s restart, each retry at most 1 s after the last', async () => {
    // Four devices spread by the browser's CSPRNG, and the two ends of the spread.
    const devices = [setup(null), setup(null), setup(null), setup(null), setup(() => 0), setup(() => 0.999_999)];
    for (const t of devices) {
      t.socket.start();
      t.authenticate();
      const attempts = await restart(t, 4000);
      expect(t.socket.state).toBe('authenticated');
      for (const gap of gaps(attempts)) expect(gap).toBeLessThanOrEqual(1000);
      // The attempt that got through came at most 1 s after the server was back.
      expect((attempts.at(-1) ?? 0) - 4000).toBeLessThanOrEqual(1000);
    }
  });

  it('keeps the 1 s bound through a slower restart of 7 s, at the unluckiest spread', async () => {
    const t = setup(() => 0);
    t.socket.start();
    t.authenticate();
    const attempts = await restart(t, 7000);
    for (const gap of gaps(attempts)) expect(gap).toBeLessThanOrEqual(1000);
  });

  it('spreads the retries with crypto.getRandomValues, never Math.random', async () => {
    const fromCrypto = vi.spyOn(globalThis.crypto, 'getRandomValues');
    const fromMath = vi.spyOn(Math, 'random');
    const t = setup(null);
    t.socket.start();
    t.authenticate();
    await restart(t, 2000);
    expect(fromCrypto).toHaveBeenCalled();
    expect(fromMath).not.toHaveBeenCalled();
  });

  it('slows down against a server down for long: after the fast attempts, 1.5 s, 3 s, 6 s, then at most 10 s', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    const attempts = await restart(t, 60_000);
    const waits = gaps(attempts);
    expect(waits.slice(0, RECONNECT_FAST_ATTEMPTS)).toEqual(Array<number>(RECONNECT_FAST_ATTEMPTS).fill(625));
    expect(waits.slice(RECONNECT_FAST_ATTEMPTS, RECONNECT_FAST_ATTEMPTS + 4)).toEqual([1500, 3000, 6000, 7500]);
    for (const wait of waits) expect(wait).toBeLessThanOrEqual(RECONNECT_MAX_MS);
    // Back and authenticated: the next drop is fast again.
    t.latest().drop();
    const before = t.sockets.length;
    await vi.advanceTimersByTimeAsync(625);
    expect(t.sockets).toHaveLength(before + 1);
  });

  it('tries at once when the page becomes visible again, without a second attempt from the skipped timer', async () => {
    const t = setup();
    t.socket.start();
    t.authenticate();
    t.page.hide();
    t.latest().drop();
    expect(t.sockets).toHaveLength(1);
    t.page.show();
    expect(t.sockets).toHaveLength(2);
    expect(t.socket.state).toBe('connecting');
    await vi.advanceTimersByTimeAsync(5000);
    expect(t.sockets).toHaveLength(2);
    // Hiding or showing a connected page changes nothing.
    t.authenticate();
    t.page.hide();
    t.page.show();
    expect(t.sockets).toHaveLength(2);
    expect(t.socket.state).toBe('authenticated');
  });
});
