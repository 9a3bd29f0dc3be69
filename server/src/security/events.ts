/**
 * Security events and the audit log (DESIGN.md section 6): one table, written here only. Each
 * event keeps the address the server really saw and the request's headers minus credentials.
 */
import net from 'node:net';
import { and, count, eq, gt } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/client';
import { securityEvents } from '../db/schema';

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export const eventTypes = {
  loginFailed: 'login_failed',
  bannedLogin: 'banned_access',
  rateLimited: 'rate_limit',
  socketAuthFailed: 'websocket_auth_failed',
  keyRefused: 'key_validation_failed',
  canaryKey: 'canary_key_used',
  masterKeyFailed: 'master_key_failed',
  keysGenerated: 'admin_keys_generated',
  keysRevoked: 'admin_keys_revoked',
  keysExported: 'admin_keys_exported',
  userBanned: 'member_banned',
  userUnbanned: 'member_unbanned',
  roleChanged: 'creator_role_changed',
  superAdminChanged: 'creator_account_marked',
  emergencyShutdown: 'emergency_shutdown',
  emergencyLifted: 'emergency_lifted',
} as const;

const SECRET_HEADERS = new Set(['cookie', 'authorization', 'set-cookie']);

export type IpAnalysis = {
  clientIP: string | null;
  /** The X-Forwarded-For chain, only when a trusted proxy is configured. */
  forwardedFor: string[];
  classification: 'loopback' | 'private' | 'public' | 'unknown';
  headers: Record<string, string>;
};

function classifyIp(ip: string | null): IpAnalysis['classification'] {
  if (!ip) return 'unknown';
  const v4 = ip.startsWith('::ffff:') ? ip.slice(7) : ip;
  if (net.isIPv4(v4)) {
    const [a = 0, b = 0] = v4.split('.').map(Number);
    if (a === 127) return 'loopback';
    if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)) return 'private';
    return 'public';
  }
  if (ip === '::1') return 'loopback';
  if (/^f[cd]/i.test(ip) || /^fe80/i.test(ip)) return 'private';
  return net.isIPv6(ip) ? 'public' : 'unknown';
}

function analyzeRequest(req: FastifyRequest): IpAnalysis {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (SECRET_HEADERS.has(name) || value === undefined || value === '') continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return {
    clientIP: req.ip ?? null,
    // Fastify fills `ips` from X-Forwarded-For only when a trusted proxy is configured.
    forwardedFor: req.ips ?? [],
    classification: classifyIp(req.ip ?? null),
    headers,
  };
}

export type EventInput = {
  type: string;
  severity: Severity;
  userId?: string | null;
  actor?: string | null;
  details?: Record<string, unknown>;
};

/** Records an event seen on a request (or, without one, by the server itself). */
export async function recordEvent(db: Db, req: FastifyRequest | null, event: EventInput): Promise<void> {
  const analysis = req ? analyzeRequest(req) : null;
  await db.insert(securityEvents).values({
    type: event.type,
    severity: event.severity,
    userId: event.userId ?? null,
    actor: event.actor ?? null,
    ip: analysis?.clientIP ?? null,
    details: event.details ?? {},
    ipAnalysis: analysis ?? {},
  });
}

/** The actor of an authorized request: the member, or the creator by master key. */
export function actorOf(req: FastifyRequest): string | null {
  return req.isCreator ? 'creator' : (req.auth?.user.id ?? null);
}

/** Events of one type from one address in the last `windowMs`: a rate limit that holds across instances. */
export async function recentFailures(db: Db, ip: string, type: string, windowMs: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(securityEvents)
    .where(and(eq(securityEvents.type, type), eq(securityEvents.ip, ip), gt(securityEvents.createdAt, new Date(Date.now() - windowMs))));
  return row?.n ?? 0;
}
