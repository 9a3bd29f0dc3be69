/**
 * Periodic checks that count themselves (threatStore.checked): each tick is a check that ran;
 * intervals that passed without a tick (a throttled background tab, a frozen or sleeping one) are
 * checks that were due and did not run. A late tick is never a detection: browsers delay timers
 * in background tabs by design.
 */
import { missedCheckFactor } from './constants';

export type Clock = { now(): number };
export type Timers = {
  setInterval(run: () => void, ms: number): number;
  clearInterval(id: number): void;
};

/** Checks that were due since the last tick and did not run. */
export function missedChecks(elapsedMs: number, intervalMs: number): number {
  if (elapsedMs < intervalMs * missedCheckFactor) return 0;
  return Math.floor(elapsedMs / intervalMs) - 1;
}

/** Runs `check` every `intervalMs`, reporting each due check to `onChecked`; returns the stop function. */
export function everyInterval(
  intervalMs: number,
  check: () => void,
  onChecked: (ran: boolean) => void,
  clock: Clock,
  timers: Timers,
): () => void {
  let last = clock.now();
  const id = timers.setInterval(() => {
    const now = clock.now();
    for (let i = missedChecks(now - last, intervalMs); i > 0; i--) onChecked(false);
    last = now;
    check();
    onChecked(true);
  }, intervalMs);
  return () => timers.clearInterval(id);
}
