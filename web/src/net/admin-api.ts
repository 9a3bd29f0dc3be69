/**
 * Key administration and moderation calls (/api/admin/*). The server lets an admin in by the
 * session cookie, or anyone holding the creator's master key by `Authorization: SuperAdmin …`;
 * every call here sends the master-key header when this tab holds one (creator-session.ts) and
 * lets the cookie decide otherwise.
 */
import { limits, routes, type AccessKey, type AdminGroupsResponse, type GenerateKeysRequest, type KeyStats } from '@enclave/protocol';
import { creatorHeaders, masterKeyHeader } from './creator-session';
import { call, send } from './http';

export function fetchKeyStats(): Promise<KeyStats> {
  return call(routes.keyStats, {}, creatorHeaders());
}

/**
 * Asks for the key statistics with a candidate master key: resolves with them when the server
 * accepts the key, rejects with ApiError 403 (wrong key) or 429 (too many wrong keys) otherwise.
 */
export function checkMasterKey(masterKey: string): Promise<KeyStats> {
  return call(routes.keyStats, {}, masterKeyHeader(masterKey));
}

/** That private groups exist, their size and age; never a name or a member (docs/security.md §4). */
export async function fetchAdminGroups(): Promise<AdminGroupsResponse['groups']> {
  return (await call(routes.adminGroups, {}, creatorHeaders())).groups;
}

/** The first 20 keys that can still be sold. */
export async function fetchUnusedKeys(): Promise<AccessKey[]> {
  return (await call(routes.unusedKeys, {}, creatorHeaders())).keys;
}

export async function generateKeys(body: GenerateKeysRequest): Promise<AccessKey[]> {
  return (await call(routes.generateKeys, { body }, creatorHeaders())).keys;
}

/**
 * Revokes in batches the server accepts (at most `limits.keyQuantityMax` ids each): resolves with
 * how many of these keys were still revocable (unused, active); keys already used or revoked are
 * left as they are.
 */
export async function revokeKeys(ids: readonly string[]): Promise<number> {
  let revoked = 0;
  for (let i = 0; i < ids.length; i += limits.keyQuantityMax) {
    revoked += (await call(routes.revokeKeys, { body: { ids: ids.slice(i, i + limits.keyQuantityMax) } }, creatorHeaders())).revoked;
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
 * The keys of one sale batch (all available keys without a purchase ID) as CSV text. Fetched
 * rather than linked, because a link cannot carry the master-key header.
 */
export async function exportKeysCsv(purchaseId?: string): Promise<KeysCsv> {
  const response = await send(routes.exportKeys, { query: { purchaseId } }, creatorHeaders());
  const text = await response.text();
  const filename = filenameFromDisposition(response.headers.get('content-disposition')) ?? 'enclave-keys.csv';
  return { filename, text };
}

/** Sessions end and sockets close on the server at once. */
export async function banUser(userId: string, reason: string): Promise<void> {
  await call(routes.adminBan, { body: { userId, reason } }, creatorHeaders());
}

export async function unbanUser(userId: string): Promise<void> {
  await call(routes.adminUnban, { body: { userId } }, creatorHeaders());
}
