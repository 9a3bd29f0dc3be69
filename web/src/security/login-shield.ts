/**
 * The login side of tamper detection (docs/spec.md §4 "Anti-tamper escalation"). Detections
 * escalate by the rule the monitor uses too ({@link escalation}): low and medium ones are only
 * recorded; each high one is a strike, and the first two strikes each schedule decoy calls after
 * 2^n seconds (n = the strike's number); the third strike, or any critical detection, wipes the
 * browser, shows the breach screen and returns to / after 3 s. The count lasts as long as the page
 * (the return to / reloads it). On a relaxed host detections are recorded and nothing else happens.
 */
import { escalation, tamper } from './constants';
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

  /** Strikes counted so far (detections that escalated). */
  get detections(): number {
    return this.attempts;
  }

  /** A detection of a lasting condition, counted the first time its `key` is seen. */
  detectOnce(key: string, detection: Detection): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.detect(detection);
  }

  /** A detection of an event (a submitted token, a refused attempt, a debugger stop): each is judged. */
  detect(detection: Detection): void {
    this.actions.record(detection);
    if (this.relaxed || this.wiping) return;
    const step = escalation(detection.severity);
    if (step === 'record') return;
    this.attempts += 1;
    if (step === 'strike' && this.attempts < tamper.threshold) {
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
