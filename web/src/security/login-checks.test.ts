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

/** What common extensions do before any page script runs: wrappers that call the originals. */
function wrapNetwork(host: ReturnType<typeof page>) {
  const fetch = host.fetch;
  host.fetch = (...args: number[]) => fetch(...args);
  const { open, send } = host.XMLHttpRequest.prototype;
  host.XMLHttpRequest.prototype.open = (...args: number[]) => open(...args);
  host.XMLHttpRequest.prototype.send = (x: number) => send(x);
}

function setup({ relaxed = false, beforeLoad = (_host: ReturnType<typeof page>) => {} } = {}) {
  const host = page();
  beforeLoad(host);
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
    geometry: () => ({
      outerWidth: 1280,
      outerHeight: 720,
      innerWidth: devtools.docked ? 900 : 1280,
      innerHeight: 720,
      finePointer: true,
      pinchScale: 1,
    }),
    heapBytes: () => null,
    origin: 'http://127.0.0.1',
    watchScripts: (onForeign) => {
      inject = (src) => onForeign({} as Element, src);
      return () => (inject = () => {});
    },
  };
  const decoys = vi.fn();
  const wipe = vi.fn(async () => {});
  const shield = new LoginShield(
    {
      record: (d) => threatStore.record(d),
      countermeasure: (n) => threatStore.countermeasure(n),
      later: (ms, run) => void setTimeout(run, ms),
      decoys,
      wipe,
      showBreach: () => {},
      leave: () => {},
    },
    relaxed,
  );
  const stop = startLoginChecks(shield, env, (ran) => threatStore.checked(ran));
  return { host, shield, stop, inject: (src: string | null) => inject(src), decoys, wipe, devtools };
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

  it('record a replaced function once, however many checks see it', async () => {
    const s = setup();
    Reflect.set(s.host, 'fetch', async () => new Response());
    await vi.advanceTimersByTimeAsync(60_000);
    s.stop();
    expect(threatStore.get().detections.map((d) => [d.type, d.severity])).toEqual([['modified_native_function', 'medium']]);
  });

  it('record every injected script element', async () => {
    const s = setup();
    s.inject('https://evil.example.net/x.js');
    s.inject(null);
    s.stop();
    expect(threatStore.get().detections.map((d) => d.description)).toEqual([
      'Unauthorized script injection: https://evil.example.net',
      'Unauthorized script injection: inline script',
    ]);
  });

  it("record an extension's network wrappers and scripts, and never escalate them: no decoys, no wipe", async () => {
    const s = setup({ beforeLoad: wrapNetwork });
    await vi.advanceTimersByTimeAsync(10_000);
    s.inject('chrome-extension://abcdefghijklmnop/inject.js');
    s.inject(null);
    // Wrapped again while the page runs, as extensions that inject late do.
    wrapNetwork(s.host);
    await vi.advanceTimersByTimeAsync(10 * 60_000);
    s.stop();
    expect(threatStore.get().detections.map((d) => d.description)).toEqual([
      "Modified native function: fetch is not the browser's own",
      "Modified native function: XMLHttpRequest.prototype.open is not the browser's own",
      "Modified native function: XMLHttpRequest.prototype.send is not the browser's own",
      'Unauthorized script injection: chrome-extension://abcdefghijklmnop',
      'Unauthorized script injection: inline script',
      'Modified native function: fetch was replaced while the page ran',
      'Modified native function: XMLHttpRequest.prototype.open was replaced while the page ran',
      'Modified native function: XMLHttpRequest.prototype.send was replaced while the page ran',
    ]);
    expect(threatStore.get().detections.every((d) => d.severity === 'medium')).toBe(true);
    expect(s.shield.detections).toBe(0);
    expect(threatStore.get().countermeasures).toEqual([]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(s.decoys).not.toHaveBeenCalled();
    expect(s.wipe).not.toHaveBeenCalled();
  });

  it('wipe at once when WebCrypto is replaced while the page runs, counting it once', async () => {
    const s = setup();
    Reflect.set(s.host.crypto.subtle, 'digest', async () => new ArrayBuffer(32));
    await vi.advanceTimersByTimeAsync(60_000);
    s.stop();
    expect(threatStore.get().detections.map((d) => [d.type, d.severity])).toEqual([['crypto_api_compromised', 'critical']]);
    expect(s.wipe).toHaveBeenCalledTimes(1);
    expect(s.decoys).not.toHaveBeenCalled();
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
