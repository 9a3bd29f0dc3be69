/**
 * The network creator's calls (/api/creator/* and the key database). Generating and revoking
 * keys are /admin's calls, shared from admin-api.ts. Every call carries `Authorization: SuperAdmin
 * <key>` from the in-memory creator session and parses its answer with the route's schema.
 */
import {
  routes,
  type BlockedIp,
  type Compliance,
  type EmergencyState,
  type Heatmap,
  type KeyPage,
  type KeyStatus,
  type LiveEvent,
  type MonitoredUser,
  type Overview,
  type Risk,
  type SecurityMetrics,
} from '@enclave/protocol';
import { creatorHeaders, masterKeyHeader } from './creator-session';
import { call } from './http';

/**
 * Signs in: asks for the overview with a candidate key, before it is held anywhere. Resolves with
 * the overview when the key is right; ApiError 403 when it is wrong, 429 when this address has
 * tried too many.
 */
export function authenticateCreator(candidateKey: string): Promise<Overview> {
  return call(routes.overview, {}, masterKeyHeader(candidateKey));
}

export function fetchOverview(): Promise<Overview> {
  return call(routes.overview, {}, creatorHeaders());
}

export async function fetchMonitoredUsers(): Promise<MonitoredUser[]> {
  return (await call(routes.monitoredUsers, {}, creatorHeaders())).users;
}

/** Bans one member; the reason defaults to 'Banned by network creator' (docs/spec.md §7). */
export async function banUser(userId: string, reason?: string): Promise<void> {
  await call(routes.creatorBan, { body: { userId, reason } }, creatorHeaders());
}

export async function unbanUser(userId: string): Promise<void> {
  await call(routes.creatorUnban, { body: { userId } }, creatorHeaders());
}

/** Lifts the bans of these members; resolves with how many were banned. */
export async function unbanUsers(userIds: readonly string[]): Promise<number> {
  return (await call(routes.creatorUnbanMany, { body: { userIds: [...userIds] } }, creatorHeaders())).unbanned;
}

export async function setRole(userId: string, role: 'member' | 'admin'): Promise<void> {
  await call(routes.setRole, { body: { userId, role } }, creatorHeaders());
}

/** Lets a member locked by the breach policy sign in again. */
export async function unlockUser(userId: string): Promise<void> {
  await call(routes.unlockUser, { body: { userId } }, creatorHeaders());
}

/** Marks (or unmarks) an account as the creator's own: the emergency shutdown spares it. */
export async function setCreatorAccount(userId: string, isCreatorAccount: boolean): Promise<void> {
  await call(routes.setCreatorAccount, { body: { userId, isCreatorAccount } }, creatorHeaders());
}

export function emergencyShutdown(): Promise<{ banned: number; emergency: EmergencyState }> {
  return call(routes.emergencyShutdown, {}, creatorHeaders());
}

export async function liftEmergency(): Promise<EmergencyState> {
  return (await call(routes.liftEmergency, {}, creatorHeaders())).emergency;
}

export type AccessKeysFilter = { status?: KeyStatus; q?: string };

/**
 * A page of the key database (canaries included), filtered on the server by status and purchase ID
 * or username; `after`: the previous page's `next`.
 */
export function fetchAccessKeys(filter: AccessKeysFilter = {}, after?: string): Promise<KeyPage> {
  const q = filter.q?.trim() || undefined;
  return call(routes.accessKeys, { query: { status: filter.status, q, after } }, creatorHeaders());
}

/** Revokes every active key on the server at once (the console holds only the pages it loaded); how many. */
export async function revokeActiveKeys(): Promise<number> {
  return (await call(routes.revokeActiveKeys, {}, creatorHeaders())).revoked;
}

export function fetchHeatmap(): Promise<Heatmap> {
  return call(routes.heatmap, {}, creatorHeaders());
}

export function fetchRisk(): Promise<Risk> {
  return call(routes.risk, {}, creatorHeaders());
}

export function fetchCompliance(): Promise<Compliance> {
  return call(routes.compliance, {}, creatorHeaders());
}

/** The 50 latest security events, newest first (docs/spec.md §9). */
export async function fetchLiveEvents(): Promise<LiveEvent[]> {
  return (await call(routes.liveEvents, {}, creatorHeaders())).events;
}

export function fetchSecurityMetrics(): Promise<SecurityMetrics> {
  return call(routes.securityMetrics, {}, creatorHeaders());
}

export async function fetchBlockedIps(): Promise<BlockedIp[]> {
  return (await call(routes.blockedIps, {}, creatorHeaders())).blocked;
}

/** Blocks an address until unblocked, with the specification's reason (docs/spec.md §7). */
export async function blockIp(ip: string, reason: string): Promise<BlockedIp> {
  return (await call(routes.blockIp, { body: { ip, reason } }, creatorHeaders())).block;
}

export async function unblockIp(ip: string): Promise<void> {
  await call(routes.unblockIp, { body: { ip } }, creatorHeaders());
}
