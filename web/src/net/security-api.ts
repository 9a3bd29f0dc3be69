/**
 * Security calls of the member and of the tamper detector: the member's own security view and
 * sessions, the breach report, and the decoys (docs/spec.md §7).
 */
import { routes, type BreachReport, type MySecurity, type SessionInfo } from '@enclave/protocol';
import { call } from './http';

export function fetchMySecurity(): Promise<MySecurity> {
  return call(routes.mySecurity, {});
}

export async function fetchSessions(): Promise<SessionInfo[]> {
  return (await call(routes.sessions, {})).sessions;
}

/** Ends the member's other sessions; resolves with how many ended. */
export async function revokeOtherSessions(): Promise<number> {
  return (await call(routes.revokeOtherSessions, {})).revoked;
}

/** Ends one of the member's sessions (another device), by its public id. */
export async function revokeSession(id: string): Promise<void> {
  await call(routes.revokeSession, { params: { id } });
}

/** Ends every session of the member, this one included. */
export async function revokeAllSessions(): Promise<number> {
  return (await call(routes.revokeAllSessions, {})).revoked;
}

export async function reportBreach(report: BreachReport): Promise<void> {
  await call(routes.breachReport, { body: report });
}

/** The login screen's decoys: the three honeypots, called with no body. Failures do not matter. */
export function callLoginDecoys(): void {
  void call(routes.decoyAuth, { body: undefined }).catch(() => undefined);
  void call(routes.decoyValidate, { body: undefined }).catch(() => undefined);
  void call(routes.decoyDecrypt, { body: undefined }).catch(() => undefined);
}

/** Plausible paths under /api/decoy/ for the monitor's decoys; none of them exists for real. */
const DECOY_PATHS = ['session/refresh', 'keys/export', 'vault/sync'] as const;

/** The monitor's n-th decoy (n from 1): one honeypot path, with the body `{decoy: true}`. */
export function callMonitorDecoy(n: number): void {
  const path = DECOY_PATHS[(n - 1) % DECOY_PATHS.length] ?? DECOY_PATHS[0];
  void call(routes.decoyAnyPost, { body: { decoy: true }, params: { '*': path } }).catch(() => undefined);
}
