import type { LiveEvent, SecurityState } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import type { Detection, ThreatState } from '../security/threat-state';
import {
  combineThreat,
  describeEvent,
  detailEntries,
  formatAccuracy,
  formatResponseTime,
  ipParts,
  nameLabel,
  nonEmptyHeaders,
  recentThreatVectors,
} from './threat-model';

const network: SecurityState = {
  emergencyMode: false,
  breachPolicy: 'log',
  counts: { total: 6, critical: 1, high: 2, medium: 2, low: 1 },
  threatScore: 20,
  activeThreats: 3,
  blockedIPs: 1,
  tamperReports: 0,
  decoyEndpoints: 5,
  decoyHits: 2,
  dynamicKeys: 4,
  messageKeys: 9,
  encryptionLayers: 2,
  responseTimeMs: 12.5,
  countermeasures: ['rate_limiting', 'ip_blocking'],
};

function local(detections: Detection[], checks = { due: 0, run: 0 }, countermeasures: string[] = []): ThreatState {
  const counts = { total: detections.length, critical: 0, high: 0, medium: 0, low: 0 };
  const scores = { low: 1, medium: 3, high: 7, critical: 15 };
  let score = 0;
  for (const d of detections) {
    counts[d.severity] += 1;
    score += scores[d.severity];
  }
  return {
    detections,
    score,
    threatLevel: Math.min(100, score),
    protectionLevel: 'minimal',
    underAttack: false,
    counts,
    checks,
    countermeasures,
    features: [],
  };
}

const detection = (severity: Detection['severity'], timestamp: number, type = 'debugger_detected'): Detection => ({
  type,
  severity,
  description: `${type} at ${timestamp}`,
  timestamp,
});

function event(id: number, lastSeen: string, over: Partial<LiveEvent> = {}): LiveEvent {
  return {
    id,
    type: 'login_failed',
    severity: 'medium',
    timestamp: lastSeen,
    lastSeen,
    count: 1,
    userId: null,
    username: null,
    actor: null,
    details: {},
    ipAnalysis: {
      clientIP: '203.0.113.7',
      forwardedFor: [],
      classification: 'public',
      localNetworkIP: null,
      publicIP: null,
      webrtcIPs: [],
      headers: {},
    },
    ...over,
  };
}

describe('combineThreat', () => {
  it('adds the network score and the browser score, capped at 100 for the level only', () => {
    const browser = local([
      detection('critical', 1),
      detection('critical', 2),
      detection('critical', 3),
      detection('critical', 4),
      detection('critical', 5),
      detection('critical', 6),
    ]);
    const t = combineThreat(network, browser);
    expect(t.score).toBe(20 + 90);
    expect(t.threatLevel).toBe(100);
    expect(t.protectionLevel).toBe('military');
    expect(t.underAttack).toBe(true);
  });

  it('reads the protection level and the attack state from the combined score', () => {
    expect(combineThreat(network, local([]))).toMatchObject({ score: 20, protectionLevel: 'standard', underAttack: false });
    expect(combineThreat(network, local([detection('high', 1)]))).toMatchObject({ score: 27, protectionLevel: 'standard' });
    expect(combineThreat(network, local([detection('critical', 1)]))).toMatchObject({ score: 35, protectionLevel: 'enhanced' });
    // 51 is above the threshold of 50; 50 is not.
    expect(combineThreat({ ...network, threatScore: 37 }, local([detection('high', 1), detection('high', 2)])).underAttack).toBe(true);
    expect(combineThreat({ ...network, threatScore: 35 }, local([detection('critical', 1)])).underAttack).toBe(false);
  });

  it('counts the network events and the browser detections per severity', () => {
    const t = combineThreat(network, local([detection('critical', 1), detection('low', 2)]));
    expect(t.counts).toEqual({ total: 8, critical: 2, high: 2, medium: 2, low: 2 });
  });

  it('lists each countermeasure once, the network first', () => {
    const t = combineThreat(network, local([], undefined, ['decoy_calls', 'ip_blocking']));
    expect(t.countermeasures).toEqual(['rate_limiting', 'ip_blocking', 'decoy_calls']);
  });

  it('is the browser alone until the network answered, with no response time', () => {
    const t = combineThreat(undefined, local([detection('medium', 1)]));
    expect(t).toMatchObject({ score: 3, threatLevel: 3, protectionLevel: 'minimal', responseTimeMs: null, countermeasures: [] });
    expect(t.counts).toEqual({ total: 1, critical: 0, high: 0, medium: 1, low: 0 });
  });

  it('has no accuracy before a check was due, and the share of checks run after', () => {
    expect(combineThreat(network, local([])).detectionAccuracy).toBeNull();
    expect(combineThreat(network, local([], { due: 8, run: 7 })).detectionAccuracy).toBe(87.5);
    expect(combineThreat(network, local([], { due: 3, run: 0 })).detectionAccuracy).toBe(0);
  });
});

describe('formatting', () => {
  it('shows accuracy with one decimal and "—" for none', () => {
    expect(formatAccuracy(null)).toBe('—');
    expect(formatAccuracy(100)).toBe('100.0%');
    expect(formatAccuracy((2 / 3) * 100)).toBe('66.7%');
  });

  it('shows the response time in whole ms and "—" before any', () => {
    expect(formatResponseTime(null)).toBe('—');
    expect(formatResponseTime(12.5)).toBe('13 ms');
  });
});

describe('recentThreatVectors', () => {
  it('merges network events and browser detections, newest first, ten at most', () => {
    const base = Date.parse('2026-11-21T10:00:00Z');
    const events = Array.from({ length: 8 }, (_, i) => event(i + 1, new Date(base + i * 2000).toISOString()));
    const detections = Array.from({ length: 4 }, (_, i) => detection('high', base + i * 2000 + 7000));
    const rows = recentThreatVectors(events, detections);
    expect(rows).toHaveLength(10);
    expect(rows.map((r) => r.at)).toEqual([...rows.map((r) => r.at)].sort((a, b) => b - a));
    expect(rows[0]).toMatchObject({ origin: 'network', key: 'network-8', source: '203.0.113.7', type: 'login_failed' });
    expect(rows[1]).toMatchObject({ origin: 'browser', severity: 'high' });
  });

  it('leaves out audit entries', () => {
    const rows = recentThreatVectors(
      [event(2, '2026-11-21T10:05:00Z', { type: 'ip_blocked', actor: 'creator' }), event(1, '2026-11-21T10:00:00Z')],
      [],
    );
    expect(rows.map((r) => r.key)).toEqual(['network-1']);
  });

  it('dates a coalesced event by its last occurrence', () => {
    const rows = recentThreatVectors(
      [event(1, '2026-11-21T10:05:00Z', { timestamp: '2026-11-21T10:00:00Z', count: 4 }), event(2, '2026-11-21T10:03:00Z')],
      [],
    );
    expect(rows.map((r) => r.key)).toEqual(['network-1', 'network-2']);
  });
});

describe('nameLabel', () => {
  it('shows underscores as spaces, capitalised, with IP in capitals', () => {
    expect(nameLabel('ip_blocking')).toBe('IP blocking');
    expect(nameLabel('canary_key_used')).toBe('Canary key used');
    expect(nameLabel('blocked_ip_hit')).toBe('Blocked IP hit');
    expect(nameLabel('zip_bomb')).toBe('Zip bomb');
  });
});

describe('describeEvent', () => {
  it('says what the event means, for whom and how often', () => {
    expect(describeEvent({ type: 'master_key_failed', count: 1, username: null })).toBe('A wrong master key was presented');
    expect(describeEvent({ type: 'banned_access', count: 3, username: 'bob' })).toBe('A banned member tried to sign in (bob), 3 times');
    expect(describeEvent({ type: 'new_kind_of_thing', count: 1, username: null })).toBe('Security event: new kind of thing');
  });
});

describe('event details', () => {
  it('names each address, "Unknown" for a missing one, and none at all without any', () => {
    const ip = event(1, '2026-11-21T10:00:00Z').ipAnalysis;
    expect(ipParts(ip, 'Unknown')).toEqual([
      { label: 'client', value: '203.0.113.7' },
      { label: 'local', value: 'Unknown' },
      { label: 'public', value: 'Unknown' },
      { label: 'webrtc', value: 'Unknown' },
    ]);
    expect(ipParts({ ...ip, clientIP: null, webrtcIPs: ['10.0.0.2', '192.168.1.4'] }, '?')?.map((p) => p.value)).toEqual([
      '?',
      '?',
      '?',
      '10.0.0.2, 192.168.1.4',
    ]);
    expect(ipParts({ ...ip, clientIP: null }, 'Unknown')).toBeNull();
  });

  it('keeps the headers that say something, by name', () => {
    expect(nonEmptyHeaders({ 'user-agent': 'x', accept: '*/*', referer: '', dnt: '  ' })).toEqual([
      ['accept', '*/*'],
      ['user-agent', 'x'],
    ]);
  });

  it('lists the details without the repeat bookkeeping, objects as JSON', () => {
    expect(
      detailEntries({ count: 3, lastSeen: 'x', path: '/api/decoy/a', username_tried: 'eve', clientIp: '::1', empty: '', extra: { a: 1 } }),
    ).toEqual([
      ['Path', '/api/decoy/a'],
      ['Username tried', 'eve'],
      ['Client IP', '::1'],
      ['Extra', '{"a":1}'],
    ]);
  });
});
