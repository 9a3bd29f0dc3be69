import type { SecurityState } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { obfuscationTexts } from './advanced-security-texts';
import { obfuscationFigures } from './obfuscation';

const metrics: SecurityState = {
  emergencyMode: false,
  breachPolicy: 'log',
  counts: { total: 0, critical: 0, high: 0, medium: 0, low: 0 },
  threatScore: 0,
  activeThreats: 0,
  blockedIPs: 0,
  tamperReports: 0,
  decoyEndpoints: 5,
  decoyHits: 9,
  dynamicKeys: 4,
  messageKeys: 3,
  encryptionLayers: 2,
  responseTimeMs: null,
  countermeasures: [],
};

const values = (m: SecurityState | undefined) => Object.fromEntries(obfuscationFigures(m).map((f) => [f.name, f.value]));

describe('obfuscationFigures', () => {
  it("names the specification's four figures in its order, each with a hint", () => {
    const figures = obfuscationFigures(metrics);
    expect(figures.map((f) => f.name)).toEqual(['Layers', 'Decoys', 'Dynamic Keys', 'Polymorphic']);
    for (const f of figures) expect(f.hint).toBe(obfuscationTexts.hints[f.key]);
  });

  it('says what each decoy number is: hits of the last 24 hours, on the endpoints served', () => {
    expect(values(metrics)).toEqual({ Layers: '2', Decoys: '9 hits on 5 endpoints', 'Dynamic Keys': '4', Polymorphic: 'ACTIVE' });
    expect(values({ ...metrics, decoyHits: 1, decoyEndpoints: 1 }).Decoys).toBe('1 hit on 1 endpoint');
    expect(values({ ...metrics, decoyHits: 0 }).Decoys).toBe('0 hits on 5 endpoints');
  });

  it('reads Polymorphic INACTIVE when no message was stored in the last 24 hours', () => {
    expect(values({ ...metrics, messageKeys: 0 }).Polymorphic).toBe('INACTIVE');
  });

  it('shows "—" for every figure until the metrics arrive', () => {
    expect(values(undefined)).toEqual({ Layers: '—', Decoys: '—', 'Dynamic Keys': '—', Polymorphic: '—' });
  });
});
