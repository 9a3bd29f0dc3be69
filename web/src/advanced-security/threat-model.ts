/**
 * The Command Center's figures, computed from what the server measured (GET /api/security/metrics,
 * /live-events) and what this browser's detector found (threat-state.ts). Pure, so each rule is
 * unit-tested; nothing here is sampled or made up.
 */
import type { IpAnalysis, LiveEvent, SecurityState, Severity, SeverityCounts } from '@enclave/protocol';
import { isUnderAttack, liveMonitor, protectionLevel, type ProtectionLevel } from '../security/constants';
import type { Detection, ThreatState } from '../security/threat-state';
import { eventDescriptions } from './advanced-security-texts';

/** The network's and this browser's threat state together (docs/spec.md §3 "Threat state"). */
export type CombinedThreat = {
  /** Network score (last hour) plus the browser's, uncapped: what the protection level is read from. */
  score: number;
  /** The score on the 0–100 scale. */
  threatLevel: number;
  protectionLevel: ProtectionLevel;
  underAttack: boolean;
  counts: SeverityCounts;
  /** Server and browser countermeasures, each once, with underscores. */
  countermeasures: string[];
  /** Percent of the detector's due checks that ran; null before any was due. */
  detectionAccuracy: number | null;
  /** Null until the server measured one (or before its figures arrived). */
  responseTimeMs: number | null;
};

const noCounts: SeverityCounts = { total: 0, critical: 0, high: 0, medium: 0, low: 0 };

/** `network` is undefined until the metrics arrived: then only the browser's part counts. */
export function combineThreat(network: SecurityState | undefined, local: ThreatState): CombinedThreat {
  const score = (network?.threatScore ?? 0) + local.score;
  const server = network?.counts ?? noCounts;
  const counts: SeverityCounts = {
    total: server.total + local.counts.total,
    critical: server.critical + local.counts.critical,
    high: server.high + local.counts.high,
    medium: server.medium + local.counts.medium,
    low: server.low + local.counts.low,
  };
  return {
    score,
    threatLevel: Math.min(liveMonitor.threatScaleMax, score),
    protectionLevel: protectionLevel(score),
    underAttack: isUnderAttack(score),
    counts,
    countermeasures: [...new Set([...(network?.countermeasures ?? []), ...local.countermeasures])],
    detectionAccuracy: local.checks.due === 0 ? null : (local.checks.run / local.checks.due) * 100,
    responseTimeMs: network?.responseTimeMs ?? null,
  };
}

/** "97.5%", one decimal (docs/spec.md §9); "—" when no check was due. */
export function formatAccuracy(percent: number | null): string {
  return percent === null ? '—' : `${percent.toFixed(liveMonitor.accuracyDecimals)}%`;
}

/** "12 ms"; "—" before any measure. Whole milliseconds: the median of a handful can be a half. */
export function formatResponseTime(ms: number | null): string {
  return ms === null ? '—' : `${Math.round(ms)} ms`;
}

/** Type names are written with underscores; people read spaces. */
function spaced(name: string): string {
  return name.replaceAll('_', ' ');
}

/** A type or countermeasure name as a label: spaced, capitalised, "ip" as "IP" ("ip_blocking" → "IP blocking"). */
export function nameLabel(name: string): string {
  const words = spaced(name).replace(/\bip\b/gi, 'IP');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What a server event means, with its repeat count when it stands for several. */
export function describeEvent(event: Pick<LiveEvent, 'type' | 'count' | 'username'>): string {
  const base = eventDescriptions[event.type] ?? `Security event: ${spaced(event.type)}`;
  const who = event.username ? ` (${event.username})` : '';
  const times = event.count > 1 ? `, ${event.count} times` : '';
  return `${base}${who}${times}`;
}

/** One line of "Recent Threat Vectors" (docs/spec.md §3 "Threat vector"). */
export type ThreatVectorRow = {
  key: string;
  type: string;
  severity: Severity;
  description: string;
  /** The client address for a network event, the detector's source for a browser one. */
  source: string | null;
  /** ms since the epoch: the latest occurrence. */
  at: number;
  origin: 'network' | 'browser';
};

/**
 * The last ten threat vectors, newest first, from the network's events and this browser's
 * detections. Audit entries (an administrator or the creator acting) are records, not threats: the
 * server counts them in no threat figure, and they are left out here too.
 */
export function recentThreatVectors(events: readonly LiveEvent[], detections: readonly Detection[]): ThreatVectorRow[] {
  const rows: ThreatVectorRow[] = [
    ...events
      .filter((e) => e.actor === null)
      .map((e) => ({
        key: `network-${e.id}`,
        type: e.type,
        severity: e.severity,
        description: describeEvent(e),
        source: e.ipAnalysis.clientIP,
        at: Date.parse(e.lastSeen),
        origin: 'network' as const,
      })),
    ...detections.map((d, i) => ({
      key: `browser-${i}`,
      type: d.type,
      severity: d.severity,
      description: d.description,
      source: d.source ?? null,
      at: d.timestamp,
      origin: 'browser' as const,
    })),
  ];
  return rows.sort((a, b) => b.at - a.at).slice(0, liveMonitor.lastThreatVectors);
}

/** The addresses behind an event, each named; null when there is no address at all. */
export function ipParts(ip: IpAnalysis, unknown: string): { label: 'client' | 'local' | 'public' | 'webrtc'; value: string }[] | null {
  if (!ip.clientIP && !ip.localNetworkIP && !ip.publicIP && ip.webrtcIPs.length === 0) return null;
  return [
    { label: 'client', value: ip.clientIP ?? unknown },
    { label: 'local', value: ip.localNetworkIP ?? unknown },
    { label: 'public', value: ip.publicIP ?? unknown },
    { label: 'webrtc', value: ip.webrtcIPs.length ? ip.webrtcIPs.join(', ') : unknown },
  ];
}

/** The headers that say something, sorted by name. */
export function nonEmptyHeaders(headers: Record<string, string>): [string, string][] {
  return Object.entries(headers)
    .filter(([, value]) => value.trim() !== '')
    .sort(([a], [b]) => a.localeCompare(b));
}

/** The bookkeeping fields shown elsewhere on the card. */
const shownElsewhere = new Set(['count', 'lastSeen']);

/** An event's details as name/value text, without the repeat bookkeeping. */
export function detailEntries(details: Record<string, unknown>): [string, string][] {
  return Object.entries(details)
    .filter(([name, value]) => !shownElsewhere.has(name) && value !== null && value !== undefined && value !== '')
    .map(([name, value]) => [fieldLabel(name), typeof value === 'string' ? value : JSON.stringify(value)]);
}

/** A details field's name as a label: "keyPrefix" and "key_prefix" both read "Key prefix". */
function fieldLabel(name: string): string {
  return nameLabel(name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase());
}
