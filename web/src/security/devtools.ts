/**
 * Debugger and developer-tools detection (docs/spec.md §4, §9). Both rest on one fact that normal
 * use cannot produce: a `debugger` statement that stops execution. Without developer tools open
 * (or with their breakpoints switched off) the statement does nothing and takes microseconds; no
 * window geometry, zoom, side panel or mobile browser can make it stop. The geometry of §9 (outer
 * minus inner size over 160 px) only says, of a confirmed stop, whether the tools are docked.
 */
import { tamper } from './constants';

/** Stops here when developer tools are open with breakpoints active; otherwise does nothing. */
export function debuggerStatement(): void {
  // eslint-disable-next-line no-debugger -- the probe itself: it only stops when developer tools are open
  debugger;
}

/**
 * True when each of `tamper.debuggerConfirmProbes` consecutive probes took longer than the
 * threshold: a debugger stops on every one, while a one-off stall (a GC pause, a thread preempted
 * on a loaded machine) does not strike twice in a row within microseconds.
 */
export function debuggerStopped(now: () => number, probe: () => void = debuggerStatement): boolean {
  for (let i = 0; i < tamper.debuggerConfirmProbes; i++) {
    const start = now();
    probe();
    if (now() - start <= tamper.debuggerThresholdMs) return false;
  }
  return true;
}

export type WindowGeometry = {
  outerWidth: number;
  outerHeight: number;
  innerWidth: number;
  innerHeight: number;
  /** A mouse or trackpad: docked developer tools exist on desktop browsers only. */
  finePointer: boolean;
  /** Pinch zoom (visualViewport.scale); 1 when there is none. */
  pinchScale: number;
};

/**
 * Whether the window looks like it has docked developer tools: exactly one side lost more than
 * 160 px to something other than the browser's own frame. Both sides at once is page zoom (which
 * scales the inner size on both axes), not a docked panel. Alone this proves nothing (a browser
 * side panel looks the same), so it only ever names a debugger stop that has been confirmed.
 */
export function looksDocked(g: WindowGeometry): boolean {
  if (!g.finePointer || g.pinchScale !== 1 || g.outerWidth <= 0 || g.outerHeight <= 0) return false;
  const wide = g.outerWidth - g.innerWidth > tamper.windowSizeThresholdPx;
  const tall = g.outerHeight - g.innerHeight > tamper.windowSizeThresholdPx;
  return wide !== tall;
}

/** The current window's geometry. */
export function windowGeometry(w: Window): WindowGeometry {
  return {
    outerWidth: w.outerWidth,
    outerHeight: w.outerHeight,
    innerWidth: w.innerWidth,
    innerHeight: w.innerHeight,
    finePointer: w.matchMedia('(pointer: fine)').matches,
    pinchScale: w.visualViewport?.scale ?? 1,
  };
}
