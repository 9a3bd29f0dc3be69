import { randomBytes } from 'node:crypto';
import {
  errorTexts,
  inviteKeySchema,
  limits,
  type AccessKey,
  type accessKeysQuerySchema,
  type KeyPage,
  type KeyStats,
  type KeyStatus,
  type ValidateKeyResponse,
} from '@enclave/protocol';
import { and, asc, count, eq, gt, ilike, inArray, isNotNull, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../db/client';
import { accessKeys, users } from '../db/schema';

/** What a used key earned when it was sold without a recorded price (docs/spec.md §9). */
const DEFAULT_SALE_PRICE = 50;

export type MintOptions = {
  count: number;
  expirationDays?: number;
  purchaseId?: string;
  salePrice?: number;
  canary?: boolean;
};

type KeyRow = typeof accessKeys.$inferSelect;

/** Creates `count` invite keys (32 random bytes, 64 lowercase hex each). */
export async function createKeys(db: Db, opts: MintOptions): Promise<KeyRow[]> {
  const expiresAt = opts.expirationDays ? new Date(Date.now() + opts.expirationDays * 86_400_000) : null;
  const rows = Array.from({ length: opts.count }, () => ({
    key: randomBytes(limits.tokenLength / 2).toString('hex'),
    expiresAt,
    purchaseId: opts.purchaseId ?? null,
    salePrice: opts.salePrice ?? null,
    isCanary: opts.canary ?? false,
  }));
  return db.insert(accessKeys).values(rows).returning();
}

/** The keys alone, for the operator command and tests. */
export const mintKeys = async (db: Db, opts: MintOptions): Promise<string[]> => (await createKeys(db, opts)).map((r) => r.key);

export function keyStatus(row: Pick<KeyRow, 'status' | 'usedAt' | 'expiresAt'>, now = new Date()): KeyStatus {
  if (row.status === 'revoked') return 'revoked';
  if (row.usedAt) return 'used';
  if (row.expiresAt && row.expiresAt <= now) return 'expired';
  return 'active';
}

/** keyStatus(row, now) === status, as a condition on `access_keys` (the same steps in the same order). */
export function statusIs(status: KeyStatus, now = new Date()): SQL {
  const revoked = eq(accessKeys.status, 'revoked');
  const notRevoked = eq(accessKeys.status, 'active');
  switch (status) {
    case 'revoked':
      return revoked;
    case 'used':
      return and(notRevoked, isNotNull(accessKeys.usedAt))!;
    case 'expired':
      return and(notRevoked, isNull(accessKeys.usedAt), lte(accessKeys.expiresAt, now))!;
    case 'active':
      return and(notRevoked, isNull(accessKeys.usedAt), or(isNull(accessKeys.expiresAt), gt(accessKeys.expiresAt, now)))!;
  }
}

/**
 * Why a stored key cannot be redeemed now, or null when it can. A canary key is refused exactly as
 * a key that does not exist, whatever its state: whoever holds a leaked list must not learn which
 * keys are tripwires (its use raises `canary_key_used`, keys/routes.ts and auth/routes.ts).
 */
export function refusal(row: KeyRow | undefined, now = new Date()): string | null {
  if (!row || row.isCanary) return errorTexts.keyUnknown;
  switch (keyStatus(row, now)) {
    case 'revoked':
      return errorTexts.keyRevoked;
    case 'used':
      return errorTexts.keyUsed;
    case 'expired':
      return errorTexts.keyExpired;
    case 'active':
      return null;
  }
}

export async function findKey(db: Db, key: string): Promise<KeyRow | undefined> {
  const [row] = await db.select().from(accessKeys).where(eq(accessKeys.key, key)).limit(1);
  return row;
}

/** The redeemable-now condition, for the one UPDATE that redeems a key. */
export const redeemable = (key: string, now: Date) =>
  and(
    eq(accessKeys.key, key),
    eq(accessKeys.status, 'active'),
    eq(accessKeys.isCanary, false),
    isNull(accessKeys.usedAt),
    or(isNull(accessKeys.expiresAt), gt(accessKeys.expiresAt, now)),
  );

export async function validateKey(db: Db, input: string): Promise<{ result: ValidateKeyResponse; row?: KeyRow }> {
  if (!inviteKeySchema.safeParse(input).success) {
    return { result: { valid: false, reason: errorTexts.keyMalformed, keyInfo: null } };
  }
  const row = await findKey(db, input);
  const reason = refusal(row);
  if (reason || !row) return { result: { valid: false, reason: reason ?? errorTexts.keyUnknown, keyInfo: null }, row };
  return {
    row,
    result: {
      valid: true,
      reason: errorTexts.keyValid,
      keyInfo: {
        generatedAt: row.generatedAt.toISOString(),
        expiresAt: row.expiresAt?.toISOString() ?? null,
        salePrice: row.salePrice,
      },
    },
  };
}

export function toAccessKey(row: KeyRow & { username: string | null }, now = new Date()): AccessKey {
  return {
    id: row.id,
    key: row.key,
    purchaseId: row.purchaseId,
    salePrice: row.salePrice,
    status: keyStatus(row, now),
    isCanary: row.isCanary,
    generatedAt: row.generatedAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    usedAt: row.usedAt?.toISOString() ?? null,
    username: row.username,
  };
}

/** The key database's order, oldest first; the id breaks ties (a batch shares its time) and is the page cursor. */
const keyOrder = [asc(accessKeys.generatedAt), asc(accessKeys.id)];

/** Keys for sale (no canary) with the member who redeemed each: one sale batch, or every active key. */
export async function exportableKeys(db: Db, purchaseId: string | undefined): Promise<AccessKey[]> {
  const now = new Date();
  const rows = await db
    .select({ k: accessKeys, username: users.username })
    .from(accessKeys)
    .leftJoin(users, eq(users.id, accessKeys.usedBy))
    .where(and(eq(accessKeys.isCanary, false), purchaseId ? eq(accessKeys.purchaseId, purchaseId) : statusIs('active', now)))
    .orderBy(...keyOrder);
  return rows.map((r) => toAccessKey({ ...r.k, username: r.username }, now));
}

/**
 * A page of the whole key database, canaries included: keys with this status and a purchase ID or
 * redeeming member's name containing `q` (any case), `limit` of them after the key `after`.
 */
export async function keyPage(db: Db, query: z.output<typeof accessKeysQuerySchema>): Promise<KeyPage> {
  const now = new Date();
  const needle = query.q ? `%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const filter = and(
    query.status ? statusIs(query.status, now) : undefined,
    needle ? or(ilike(accessKeys.purchaseId, needle), ilike(users.username, needle)) : undefined,
  );
  const rows = await db
    .select({ k: accessKeys, username: users.username })
    .from(accessKeys)
    .leftJoin(users, eq(users.id, accessKeys.usedBy))
    .where(
      and(
        filter,
        query.after
          ? sql`(${accessKeys.generatedAt}, ${accessKeys.id}) > (SELECT generated_at, id FROM access_keys WHERE id = ${query.after})`
          : undefined,
      ),
    )
    .orderBy(...keyOrder)
    .limit(query.limit + 1);
  const [total] = await db.select({ n: count() }).from(accessKeys).leftJoin(users, eq(users.id, accessKeys.usedBy)).where(filter);
  const keys = rows.slice(0, query.limit).map((r) => toAccessKey({ ...r.k, username: r.username }, now));
  return { keys, total: total?.n ?? 0, next: rows.length > query.limit ? keys.at(-1)!.id : null };
}

/** Keys that can still be sold, oldest first: the first `limit` of them. */
export async function availableKeys(db: Db, limit: number): Promise<AccessKey[]> {
  const now = new Date();
  const rows = await db
    .select()
    .from(accessKeys)
    .where(and(statusIs('active', now), eq(accessKeys.isCanary, false)))
    .orderBy(...keyOrder)
    .limit(limit);
  return rows.map((r) => toAccessKey({ ...r, username: null }, now));
}

export async function keyStats(db: Db): Promise<KeyStats> {
  const now = new Date();
  const [row] = await db
    .select({
      total: sql<number>`count(*)::int`,
      used: sql<number>`count(*) filter (where ${accessKeys.usedAt} is not null)::int`,
      revoked: sql<number>`count(*) filter (where ${accessKeys.status} = 'revoked' and ${accessKeys.usedAt} is null)::int`,
      expired: sql<number>`count(*) filter (where ${accessKeys.status} = 'active' and ${accessKeys.usedAt} is null and ${accessKeys.expiresAt} <= ${now})::int`,
      revenue: sql<string>`coalesce(sum(coalesce(${accessKeys.salePrice}, ${DEFAULT_SALE_PRICE})) filter (where ${accessKeys.usedAt} is not null), 0)`,
    })
    .from(accessKeys)
    .where(eq(accessKeys.isCanary, false));
  const total = row?.total ?? 0;
  const used = row?.used ?? 0;
  const revoked = row?.revoked ?? 0;
  const expired = row?.expired ?? 0;
  return {
    total,
    used,
    unused: total - used,
    available: total - used - revoked - expired,
    revoked,
    expired,
    revenue: Number(row?.revenue ?? 0),
    conversionRate: total === 0 ? 0 : Math.round((used / total) * 100),
  };
}

/** Revokes keys that are not used yet; returns how many changed. Revocation is permanent. */
export async function revokeKeys(db: Db, ids: string[]): Promise<number> {
  const rows = await db
    .update(accessKeys)
    .set({ status: 'revoked' })
    .where(and(inArray(accessKeys.id, ids), eq(accessKeys.status, 'active'), isNull(accessKeys.usedAt)))
    .returning({ id: accessKeys.id });
  return rows.length;
}

/** Revokes every active key (unused, unexpired), canaries included; how many. The creator's "revoke all". */
export async function revokeActiveKeys(db: Db): Promise<number> {
  const rows = await db.update(accessKeys).set({ status: 'revoked' }).where(statusIs('active')).returning({ id: accessKeys.id });
  return rows.length;
}

/** A sale batch as CSV, one key a line. */
export function keysCsv(keys: AccessKey[]): string {
  const cell = (v: string | number | null) => {
    const s = v === null ? '' : String(v);
    // Quote every cell, and defuse spreadsheet formulas.
    return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replaceAll('"', '""')}"`;
  };
  const header = ['key', 'status', 'purchase_id', 'sale_price', 'generated_at', 'expires_at'];
  const lines = keys.map((k) => [k.key, k.status, k.purchaseId, k.salePrice, k.generatedAt, k.expiresAt].map(cell).join(','));
  return [header.join(','), ...lines].join('\r\n') + '\r\n';
}
