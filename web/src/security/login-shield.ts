/**
 * The login side of tamper detection (docs/spec.md §4 "Anti-tamper escalation"): every detection
 * counts; the first two each schedule decoy calls after 2^n seconds (n = the detection's number),
 * the third wipes the browser, shows the breach screen and returns to / after 3 s. The count lasts
 * as long as the page (the return to / reloads it). On a relaxed host detections are recorded and
 * nothing else happens.
 */
import { tamper } from './constants';
import type { Detection } from './threat-state';

export type ShieldActions = {
  record(detection: Detection): void;
  countermeasure(name: string): void;
  /** Runs `run` after `ms` (the decoys' delay). */
  later(ms: number, run: () => void): void;
  /** The decoy calls (fire and forget). */
  decoys(): void;
  /** Clears what the browser holds; never rejects. */
  wipe(): Promise<void>;
  showBreach(): void;
  /** Goes to / (a full load, so nothing of this page survives). */
  leave(): void;
};

export const countermeasures = {
  decoys: 'decoy_calls',
  wipe: 'browser_wipe',
  report: 'breach_report',
} as const;

export class LoginShield {
  private attempts = 0;
  private wiping = false;
  /** Conditions that persist (a replaced function) count once per page, not at every check. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly actions: ShieldActions,
    readonly relaxed: boolean,
  ) {}

  /** Detections counted towards escalation so far. */
  get detections(): number {
    return this.attempts;
  }

  /** A detection of a lasting condition, counted the first time its `key` is seen. */
  detectOnce(key: string, detection: Detection): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.detect(detection);
  }

  /** A detection of an event (a submitted token, a refused attempt, a debugger stop): each counts. */
  detect(detection: Detection): void {
    this.actions.record(detection);
    if (this.relaxed || this.wiping) return;
    this.attempts += 1;
    if (this.attempts < tamper.threshold) {
      this.actions.countermeasure(countermeasures.decoys);
      this.actions.later(tamper.countermeasureDelayMs(this.attempts), () => this.actions.decoys());
      return;
    }
    this.wiping = true;
    this.actions.countermeasure(countermeasures.wipe);
    this.actions.showBreach();
    // The breach screen stays its 3 s even when the wipe is quicker, and the wipe always finishes first.
    const shown = new Promise<void>((resolve) => this.actions.later(tamper.redirectAfterWipeMs, resolve));
    void Promise.all([this.actions.wipe(), shown]).then(() => this.actions.leave());
  }
}
