/**
 * What the checks read from the browser, behind one type so that the detectors run unchanged in
 * unit tests against a fake page. `browserCheckEnv` is the real one; its capture of the native
 * functions is taken when this module is first evaluated, as the app's code loads and before it renders.
 */
import { captureNatives, type NativeCapture, type SourceOf } from './natives';
import type { Clock, Timers } from './schedule';
import { watchScripts } from './script-injection';
import { windowGeometry, type WindowGeometry } from './devtools';

export type CheckEnv = {
  /** The page's global object, as it is now. */
  host: object;
  /** The watched natives as they were when the app started. */
  captured: NativeCapture;
  sourceOf: SourceOf;
  crypto: Crypto | undefined;
  /** Monotonic milliseconds (performance.now). */
  clock: Clock;
  timers: Timers;
  /** Wall-clock milliseconds, for timestamps. */
  wallClock(): number;
  geometry(): WindowGeometry;
  /** Bytes of script heap in use, where the browser tells (Chromium's performance.memory); null elsewhere. */
  heapBytes(): number | null;
  origin: string;
  watchScripts(onForeign: (element: Element, src: string | null) => void): () => void;
};

// Captured once, now: later replacements of these are what the checks look for.
const captured = captureNatives(globalThis);
const nativeToString = Function.prototype.toString;
const apply = Reflect.apply;
const sourceOf: SourceOf = (fn) => apply(nativeToString, fn, []) as string;

type MemoryInfo = { usedJSHeapSize?: unknown };

export function browserCheckEnv(): CheckEnv {
  return {
    host: globalThis,
    captured,
    sourceOf,
    crypto: globalThis.crypto,
    clock: { now: () => performance.now() },
    timers: {
      setInterval: (run, ms) => window.setInterval(run, ms),
      clearInterval: (id) => window.clearInterval(id),
    },
    wallClock: () => Date.now(),
    geometry: () => windowGeometry(window),
    heapBytes: () => {
      const used = (performance as Performance & { memory?: MemoryInfo }).memory?.usedJSHeapSize;
      return typeof used === 'number' ? used : null;
    },
    origin: window.location.origin,
    watchScripts: (onForeign) => watchScripts(document, window.location.origin, onForeign),
  };
}
