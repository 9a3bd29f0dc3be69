/**
 * Key administration and moderation calls (/api/admin/*). The server lets an admin in by the
 * session cookie, or anyone holding the creator's master key by `Authorization: SuperAdmin …`;
 * every call here sends the master-key header when this tab holds one (creator-session.ts) and
 * lets the cookie decide otherwise.
 */
import {
  banUserRequestSchema,
  generateKeysRequestSchema,
  generateKeysResponseSchema,
  keyListResponseSchema,
  keyStatsSchema,
  limits,
  okResponseSchema,
  revokeKeysRequestSchema,
  revokeKeysResponseSchema,
  unbanUserRequestSchema,
  type AccessKey,
  type GenerateKeysRequest,
  type KeyStats,
} from '@enclave/protocol';
import { creatorHeaders } from './creator-session';
import { call, query, send } from './http';

/** The header that presents a master key the tab does not hold yet (the /admin key form). */
function masterKeyHeader(masterKey: string): Record<string, string> {
  return { Authorization: `SuperAdmin ${masterKey}` };
}

/** GET /api/admin/key-stats. */
export function fetchKeyStats(): Promise<KeyStats> {
  return call('GET', '/api/admin/key-stats', keyStatsSchema, undefined, creatorHeaders());
}

/**
 * Asks for the key statistics with a candidate master key: resolves with them when the server
 * accepts the key, rejects with ApiError 403 (wrong key) or 429 (too many wrong keys) otherwise.
 */
export function checkMasterKey(masterKey: string): Promise<KeyStats> {
  return call('GET', '/api/admin/key-stats', keyStatsSchema, undefined, masterKeyHeader(masterKey));
}

/** GET /api/admin/unused-keys: the first 20 keys that can still be sold. */
export async function fetchUnusedKeys(): Promise<AccessKey[]> {
  return (await call('GET', '/api/admin/unused-keys', keyListResponseSchema, undefined, creatorHeaders())).keys;
}

/** POST /api/admin/generate-keys (201). */
export async function generateKeys(request: GenerateKeysRequest): Promise<AccessKey[]> {
  const body = generateKeysRequestSchema.parse(request);
  return (await call('POST', '/api/admin/generate-keys', generateKeysResponseSchema, body, creatorHeaders())).keys;
}

/**
 * POST /api/admin/revoke-keys, in batches the server accepts (at most `limits.keyQuantityMax` ids
 * each): resolves with how many of these keys were still revocable (unused, active); keys already
 * used or revoked are left as they are.
 */
export async function revokeKeys(ids: readonly string[]): Promise<number> {
  let revoked = 0;
  for (let i = 0; i < ids.length; i += limits.keyQuantityMax) {
    const body = revokeKeysRequestSchema.parse({ ids: ids.slice(i, i + limits.keyQuantityMax) });
    revoked += (await call('POST', '/api/admin/revoke-keys', revokeKeysResponseSchema, body, creatorHeaders())).revoked;
  }
  return revoked;
}

export type KeysCsv = { filename: string; text: string };

/** The file name the server proposes (`Content-Disposition: attachment; filename="…"`), if any. */
export function filenameFromDisposition(header: string | null): string | null {
  const match = header ? /filename="([^"]+)"/.exec(header) : null;
  return match?.[1] ?? null;
}

/**
 * GET /api/admin/export-keys as text: the keys of one sale batch (all available keys without a
 * purchase ID). Fetched rather than linked, because a link cannot carry the master-key header.
 */
export async function exportKeysCsv(purchaseId?: string): Promise<KeysCsv> {
  const response = await send('GET', `/api/admin/export-keys${query({ purchaseId })}`, undefined, creatorHeaders());
  const text = await response.text();
  const filename = filenameFromDisposition(response.headers.get('content-disposition')) ?? 'enclave-keys.csv';
  return { filename, text };
}

/** POST /api/admin/ban-user: sessions end and sockets close on the server at once. */
export async function banUser(userId: string, reason: string): Promise<void> {
  await call('POST', '/api/admin/ban-user', okResponseSchema, banUserRequestSchema.parse({ userId, reason }), creatorHeaders());
}

/** POST /api/admin/unban-user. */
export async function unbanUser(userId: string): Promise<void> {
  await call('POST', '/api/admin/unban-user', okResponseSchema, unbanUserRequestSchema.parse({ userId }), creatorHeaders());
}
