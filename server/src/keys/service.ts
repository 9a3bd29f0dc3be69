import { randomBytes } from 'node:crypto';
import { errorTexts, inviteKeySchema, limits, type ValidateKeyResponse } from '@enclave/protocol';
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { accessKeys } from '../db/schema';

export type MintOptions = { count: number; expirationDays?: number; purchaseId?: string; salePrice?: number };

/** Creates `count` invite keys (32 random bytes, 64 lowercase hex each) and returns them. */
export async function mintKeys(db: Db, opts: MintOptions): Promise<string[]> {
  const expiresAt = opts.expirationDays ? new Date(Date.now() + opts.expirationDays * 86_400_000) : null;
  const rows = Array.from({ length: opts.count }, () => ({
    key: randomBytes(limits.tokenLength / 2).toString('hex'),
    expiresAt,
    purchaseId: opts.purchaseId ?? null,
    salePrice: opts.salePrice ?? null,
  }));
  await db.insert(accessKeys).values(rows);
  return rows.map((r) => r.key);
}

type KeyRow = typeof accessKeys.$inferSelect;

/** Why a stored key cannot be redeemed now, or null when it can. */
export function refusal(row: KeyRow | undefined, now = new Date()): string | null {
  if (!row) return errorTexts.keyUnknown;
  if (row.status === 'revoked') return 'This access key has been revoked';
  if (row.usedAt) return errorTexts.keyUsed;
  if (row.expiresAt && row.expiresAt <= now) return 'This access key has expired';
  return null;
}

export async function findKey(db: Db, key: string): Promise<KeyRow | undefined> {
  const [row] = await db.select().from(accessKeys).where(eq(accessKeys.key, key)).limit(1);
  return row;
}

export async function validateKey(db: Db, input: string): Promise<ValidateKeyResponse> {
  if (!inviteKeySchema.safeParse(input).success) return { valid: false, reason: errorTexts.keyMalformed, keyInfo: null };
  const row = await findKey(db, input);
  const reason = refusal(row);
  if (reason || !row) return { valid: false, reason: reason ?? errorTexts.keyUnknown, keyInfo: null };
  return {
    valid: true,
    reason: errorTexts.keyValid,
    keyInfo: {
      generatedAt: row.generatedAt.toISOString(),
      expiresAt: row.expiresAt?.toISOString() ?? null,
      salePrice: row.salePrice,
    },
  };
}
