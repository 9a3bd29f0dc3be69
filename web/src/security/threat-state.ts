/**
 * What this browser's tamper detector has found: the detections themselves and the threat state
 * computed from them (docs/spec.md §3 "Threat state"). The detectors record here; /security and
 * the creator's Security Command Center read it with {@link useThreatState}. Every figure is
 * counted from real detections; an empty store means nothing was detected.
 */
import type { Severity } from '@enclave/protocol';
import { useSyncExternalStore } from 'react';
import { isUnderAttack, liveMonitor, protectionLevel, severityScores, type ProtectionLevel } from './constants';

/** A detection (docs/spec.md §3 "Local security event"); type names use underscores. */
export type Detection = {
  type: string;
  severity: Severity;
  description: string;
  /** ms since the epoch. */
  timestamp: number;
  source?: string;
};

/** Parts of the detector, as the "Protection Features Active" card names them. */
export type ProtectionFeature = 'function_integrity' | 'memory_protection' | 'dom_monitoring' | 'network_analysis';

export type ThreatState = {
  detections: readonly Detection[];
  /** Sum of the detections' scores (1 / 3 / 7 / 15). */
  score: number;
  /** The score on the 0–100 scale. */
  threatLevel: number;
  protectionLevel: ProtectionLevel;
  underAttack: boolean;
  counts: { total: number; critical: number; high: number; medium: number; low: number };
  /** Checks the detector was due to run and ran (its coverage; "detection accuracy" on screen). */
  checks: { due: number; run: number };
  /** Countermeasures this browser has taken (decoy_calls, browser_wipe, …), with underscores. */
  countermeasures: readonly string[];
  /** The parts of the detector running on this screen now. */
  features: readonly ProtectionFeature[];
};

type Snapshot = {
  detections: Detection[];
  checks: { due: number; run: number };
  countermeasures: string[];
  features: readonly ProtectionFeature[];
};

const empty: Snapshot = { detections: [], checks: { due: 0, run: 0 }, countermeasures: [], features: [] };
let snapshot: Snapshot = empty;
let state: ThreatState = derive(snapshot);
const listeners = new Set<() => void>();

function derive(s: Snapshot): ThreatState {
  const counts = { total: s.detections.length, critical: 0, high: 0, medium: 0, low: 0 };
  let score = 0;
  for (const d of s.detections) {
    counts[d.severity] += 1;
    score += severityScores[d.severity];
  }
  return {
    detections: s.detections,
    score,
    threatLevel: Math.min(liveMonitor.threatScaleMax, score),
    protectionLevel: protectionLevel(score),
    underAttack: isUnderAttack(score),
    counts,
    checks: s.checks,
    countermeasures: s.countermeasures,
    features: s.features,
  };
}

function update(next: Snapshot): void {
  snapshot = next;
  state = derive(next);
  for (const listener of listeners) listener();
}

export const threatStore = {
  record(detection: Detection): void {
    update({ ...snapshot, detections: [...snapshot.detections, detection] });
  },
  /** One scheduled check: `ran` false when it could not run (say, the tab was frozen). */
  checked(ran: boolean): void {
    update({ ...snapshot, checks: { due: snapshot.checks.due + 1, run: snapshot.checks.run + (ran ? 1 : 0) } });
  },
  countermeasure(name: string): void {
    if (!snapshot.countermeasures.includes(name)) update({ ...snapshot, countermeasures: [...snapshot.countermeasures, name] });
  },
  /** The detector started (or, with none, stopped) these parts. */
  running(features: readonly ProtectionFeature[]): void {
    update({ ...snapshot, features });
  },
  get: (): ThreatState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  /** Tests only: back to nothing detected. */
  reset(): void {
    update(empty);
  },
};

export function useThreatState(): ThreatState {
  return useSyncExternalStore(threatStore.subscribe, threatStore.get);
}
