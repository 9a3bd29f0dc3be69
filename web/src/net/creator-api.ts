/**
 * The network creator's calls (/api/super-admin/* and the key database). Generating and revoking
 * keys are /admin's calls, shared from admin-api.ts. Every call carries `Authorization: SuperAdmin
 * <key>` from the in-memory creator session and parses its answer with the protocol schema.
 */
import {
  complianceSchema,
  creatorBanRequestSchema,
  heatmapSchema,
  keyListResponseSchema,
  liftEmergencyResponseSchema,
  monitoredUsersSchema,
  okResponseSchema,
  overviewSchema,
  riskSchema,
  setRoleRequestSchema,
  setSuperAdminRequestSchema,
  shutdownResponseSchema,
  unbanUserRequestSchema,
  unbanUsersRequestSchema,
  unbanUsersResponseSchema,
  type AccessKey,
  type Compliance,
  type EmergencyState,
  type Heatmap,
  type KeyStatus,
  type MonitoredUser,
  type Overview,
  type Risk,
} from '@enclave/protocol';
import { creatorHeaders } from './creator-session';
import { call, query } from './http';

/**
 * Signs in: asks for the overview with a candidate key, before it is held anywhere. Resolves with
 * the overview when the key is right; ApiError 403 when it is wrong, 429 when this address has
 * tried too many.
 */
export function authenticateCreator(candidateKey: string): Promise<Overview> {
  return call('GET', '/api/super-admin/overview', overviewSchema, undefined, { Authorization: `SuperAdmin ${candidateKey}` });
}

export function fetchOverview(): Promise<Overview> {
  return call('GET', '/api/super-admin/overview', overviewSchema, undefined, creatorHeaders());
}

export async function fetchMonitoredUsers(): Promise<MonitoredUser[]> {
  return (await call('GET', '/api/super-admin/monitor/users', monitoredUsersSchema, undefined, creatorHeaders())).users;
}

/** Bans one member; the reason defaults to 'Banned by network creator' (docs/spec.md §7). */
export async function banUser(userId: string, reason?: string): Promise<void> {
  const body = creatorBanRequestSchema.parse({ userId, reason });
  await call('POST', '/api/super-admin/ban-user', okResponseSchema, body, creatorHeaders());
}

export async function unbanUser(userId: string): Promise<void> {
  await call('POST', '/api/super-admin/unban-user', okResponseSchema, unbanUserRequestSchema.parse({ userId }), creatorHeaders());
}

/** Lifts the bans of these members; resolves with how many were banned. */
export async function unbanUsers(userIds: readonly string[]): Promise<number> {
  const body = unbanUsersRequestSchema.parse({ userIds });
  return (await call('POST', '/api/super-admin/unban-users', unbanUsersResponseSchema, body, creatorHeaders())).unbanned;
}

export async function setRole(userId: string, role: 'member' | 'admin'): Promise<void> {
  await call('POST', '/api/super-admin/set-role', okResponseSchema, setRoleRequestSchema.parse({ userId, role }), creatorHeaders());
}

/** Marks (or unmarks) an account as the creator's own: the emergency shutdown spares it. */
export async function setCreatorAccount(userId: string, isSuperAdmin: boolean): Promise<void> {
  const body = setSuperAdminRequestSchema.parse({ userId, isSuperAdmin });
  await call('POST', '/api/super-admin/set-super-admin', okResponseSchema, body, creatorHeaders());
}

export function emergencyShutdown(): Promise<{ banned: number; emergency: EmergencyState }> {
  return call('POST', '/api/super-admin/emergency-shutdown', shutdownResponseSchema, undefined, creatorHeaders());
}

export async function liftEmergency(): Promise<EmergencyState> {
  return (await call('POST', '/api/super-admin/lift-emergency', liftEmergencyResponseSchema, undefined, creatorHeaders())).emergency;
}

export type AccessKeysFilter = { status?: KeyStatus; q?: string };

/** The whole key database (canaries included), filtered on the server by status and purchase ID or username. */
export async function fetchAccessKeys(filter: AccessKeysFilter = {}): Promise<AccessKey[]> {
  const q = filter.q?.trim() || undefined;
  const path = `/api/admin/access-keys${query({ status: filter.status, q })}`;
  return (await call('GET', path, keyListResponseSchema, undefined, creatorHeaders())).keys;
}

export function fetchHeatmap(): Promise<Heatmap> {
  return call('GET', '/api/super-admin/security/heatmap', heatmapSchema, undefined, creatorHeaders());
}

export function fetchRisk(): Promise<Risk> {
  return call('GET', '/api/super-admin/security/risk', riskSchema, undefined, creatorHeaders());
}

export function fetchCompliance(): Promise<Compliance> {
  return call('GET', '/api/super-admin/security/compliance', complianceSchema, undefined, creatorHeaders());
}
