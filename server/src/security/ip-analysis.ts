/**
 * What a security event records of the address and the request behind it (docs/security.md §10):
 * the address as the server saw it, its class, the forwarded-for chain, the headers without
 * credentials and at most HEADERS_MAX characters of them, and what a member's own client reported.
 */
import net from 'node:net';
import type { IpAnalysis } from '@enclave/protocol';
import type { FastifyRequest } from 'fastify';

/** What of a request the analysis reads (an event's source, events.ts, is one). */
export type AnalyzedRequest = Pick<FastifyRequest, 'ip' | 'ips' | 'headers'>;

/**
 * Characters of header names and values an event keeps: the headers Node accepts (16 KiB) cost a
 * row at most this much; the value crossing it is cut, later headers dropped.
 */
export const HEADERS_MAX = 2048;

const SECRET_HEADERS = new Set(['cookie', 'authorization', 'set-cookie']);

/**
 * A request's headers as an event may show them: no credential, no empty value, one string each,
 * HEADERS_MAX characters of names and values at most.
 */
export function eventHeaders(requestHeaders: AnalyzedRequest['headers']): Record<string, string> {
  const headers: Record<string, string> = {};
  let left = HEADERS_MAX;
  for (const [name, value] of Object.entries(requestHeaders)) {
    if (SECRET_HEADERS.has(name) || value === undefined || value === '') continue;
    left -= name.length;
    if (left <= 0) break;
    const text = (Array.isArray(value) ? value.join(', ') : value).slice(0, left);
    headers[name] = text;
    left -= text.length;
  }
  return headers;
}

/** What a member's own client reported of its addresses (breach reports only); the server never guesses them. */
export type ReportedAddresses = { localNetworkIP?: string; publicIP?: string; webrtcIPs?: string[] };

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

export function analyzeRequest(req: AnalyzedRequest, reported: ReportedAddresses): IpAnalysis {
  const headers = eventHeaders(req.headers);
  return {
    clientIP: req.ip ?? null,
    // Fastify fills `ips` from X-Forwarded-For only when a trusted proxy is configured.
    forwardedFor: req.ips ?? [],
    classification: classifyIp(req.ip ?? null),
    localNetworkIP: reported.localNetworkIP ?? null,
    publicIP: reported.publicIP ?? null,
    webrtcIPs: reported.webrtcIPs ?? [],
    headers,
  };
}

const stringsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringOf = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const CLASSES = new Set<IpAnalysis['classification']>(['loopback', 'private', 'public', 'unknown']);

/**
 * A stored row's IP analysis in the protocol's shape. Rows written before the reported addresses
 * existed (or by the server itself, `{}`) have none: null and empty, never guessed.
 */
export function ipAnalysisOf(stored: Record<string, unknown>, ip: string | null): IpAnalysis {
  const headers: Record<string, string> = {};
  if (stored.headers && typeof stored.headers === 'object') {
    for (const [k, v] of Object.entries(stored.headers)) if (typeof v === 'string') headers[k] = v;
  }
  const classification = stored.classification as IpAnalysis['classification'];
  return {
    clientIP: stringOf(stored.clientIP) ?? ip,
    forwardedFor: stringsOf(stored.forwardedFor),
    classification: CLASSES.has(classification) ? classification : classifyIp(ip),
    localNetworkIP: stringOf(stored.localNetworkIP),
    publicIP: stringOf(stored.publicIP),
    webrtcIPs: stringsOf(stored.webrtcIPs),
    headers,
  };
}
