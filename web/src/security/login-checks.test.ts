import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CheckEnv } from './check-env';
import { startLoginChecks } from './login-checks';
import { LoginShield } from './login-shield';
import { captureNatives, WATCHED } from './natives';
import { threatStore } from './threat-state';

function page() {
  const subtle = Object.fromEntries(WATCHED.filter((w) => w.path[1] === 'subtle' && w.path[2]).map((w) => [w.path[2], Math.max]));
  return {
    fetch: Math.max,
    XMLHttpRequest: { prototype: { open: Math.min, send: Math.abs } },
    WebSocket: Math.floor,
    crypto: { getRandomValues: Math.ceil, subtle },
    Function: { prototype: { toString: Math.round } },
  };
}

function setup({ relaxed = false } = {}) {
  const host = page();
  let inject: (src: string | null) => void = () => {};
  // A debugger holding each probe: every reading of the clock is 150 ms after the last.
  const devtools = { open: false, docked: false, drift: 0 };
  const env: CheckEnv = {
    host,
    captured: captureNatives(host),
    sourceOf: (fn) => Function.prototype.toString.call(fn),
    crypto: globalThis.crypto,
    clock: { now: () => Date.now() + (devtools.open ? (devtools.drift += 150) : devtools.drift) },
    timers: { setInterval: (run, ms) => setInterval(run, ms) as unknown as number, clearInterval: (id) => clearInterval(id) },
    wallClock: () => Date.now(),
    geometry: () => ({ outerWidth: 1280, outerHeight: 720, innerWidth: devtools.docked ? 900 : 1280, innerHeight: 720, finePointer: true, pinchScale: 1 }),
    heapBytes: () => null,
    origin: 'http://127.0.0.1',
    watchScripts: (onForeign) => {
      inject = (src) => onForeign({} as Element, src);
      return () => (inject = () => {});
    },
  };
  const decoys = vi.fn();
  const shield = new LoginShield(
    {
      record: (d) => threatStore.record(d),
      countermeasure: (n) => threatStore.countermeasure(n),
      later: (ms, run) => void setTimeout(run, ms),
      decoys,
      wipe: async () => {},
      showBreach: () => {},
      leave: () => {},
    },
    relaxed,
  );
  const stop = startLoginChecks(shield, env, (ran) => threatStore.checked(ran));
  return { host, shield, stop, inject: (src: string | null) => inject(src), decoys, devtools };
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  threatStore.reset();
});
afterEach(() => void vi.useRealTimers());

describe('login-screen checks', () => {
  it('find nothing in ten minutes of an untouched page, and run every 5 s and 10 s', async () => {
    const s = setup();
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    s.stop();
    expect(threatStore.get().counts.total).toBe(0);
    // 120 debugger probes and 60 native checks.
    expect(threatStore.get().checks).toEqual({ due: 180, run: 180 });
    expect(s.shield.detections).toBe(0);
  });

  it('count a replaced function once, however many checks see it', async () => {
    const s = setup();
    Reflect.set(s.host, 'fetch', async () => new Response());
    await vi.advanceTimersByTimeAsync(60_000);
    s.stop();
    expect(threatStore.get().detections.map((d) => d.type)).toEqual(['modified_native_function']);
    expect(s.shield.detections).toBe(1);
  });

  it('count every injected script element', async () => {
    const s = setup();
    s.inject('https://evil.example.net/x.js');
    s.inject(null);
    s.stop();
    expect(threatStore.get().detections.map((d) => d.description)).toEqual([
      'Unauthorized script injection: https://evil.example.net',
      'Unauthorized script injection: inline script',
    ]);
  });

  it('name a confirmed debugger stop, and call it developer tools only when they look docked', async () => {
    const s = setup();
    s.devtools.open = true;
    await vi.advanceTimersByTimeAsync(5000);
    s.devtools.docked = true;
    await vi.advanceTimersByTimeAsync(5000);
    s.stop();
    expect(threatStore.get().detections.map((d) => d.type)).toEqual(['debugger_detected', 'devtools_detected']);
  });

  it('do not run the debugger probe on a relaxed host', async () => {
    const s = setup({ relaxed: true });
    await vi.advanceTimersByTimeAsync(60_000);
    s.stop();
    expect(threatStore.get().checks.run).toBe(6);
  });
});
