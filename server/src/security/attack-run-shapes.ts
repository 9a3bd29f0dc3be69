/** The scripted attack's addresses and how its expected events are written (attack-run.test.ts). */
import type { LiveEvent, Severity } from '@enclave/protocol';

export const ATTACKER = '203.0.113.66';
export const BLOCKED = '198.51.100.99';
export const MALLORY_IP = '192.0.2.10';
export const DAY_MS = 24 * 60 * 60 * 1000;
export const HOUR_MS = 60 * 60 * 1000;

export const from = (ip: string) => ({ 'x-forwarded-for': ip });
export const wrongMasterKey = { authorization: `SuperAdmin ${'cd'.repeat(64)}` };

/** What the test expects of one row: its type, severity, count, address, member and details. */
export type Expected = {
  type: string;
  severity: Severity;
  count: number;
  ip: string | null;
  userId: string | null;
  actor: string | null;
  details: Record<string, unknown>;
};
export const shape = (e: LiveEvent): Expected => ({
  type: e.type,
  severity: e.severity,
  count: e.count,
  ip: e.ipAnalysis.clientIP,
  userId: e.userId,
  actor: e.actor,
  details: e.details,
});
export const byKey = (a: Expected, b: Expected) => JSON.stringify(a).localeCompare(JSON.stringify(b));
