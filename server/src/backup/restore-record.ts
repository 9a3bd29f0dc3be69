/**
 * What a restore leaves in the restored database for the compliance panel (docs/operations.md §8):
 * the restored archive as a backup, when the database does not know it already (an archive holds
 * the record of earlier backups, never its own: that one is written after the dump), and the
 * restore itself (which archive, when), in `settings`.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../db/client';
import { backups, settings } from '../db/schema';

const LAST_RESTORE = 'last_restore';

export const restoreRecordSchema = z.object({
  /** The archive's path as the restore command was given it. */
  archive: z.string(),
  sha256: z.string(),
  bytes: z.number().int().nonnegative(),
  kind: z.enum(['embedded', 'postgres']),
  /** When the archive was taken: its manifest's or pg_dump's time, else the file's. */
  takenAt: z.iso.datetime(),
  restoredAt: z.iso.datetime(),
});
export type RestoreRecord = z.infer<typeof restoreRecordSchema>;

/** Records a restore in the database just restored. */
export async function recordRestore(db: Db, restore: RestoreRecord): Promise<void> {
  await db.transaction(async (tx) => {
    const [known] = await tx.select({ id: backups.id }).from(backups).where(eq(backups.sha256, restore.sha256)).limit(1);
    if (!known) {
      await tx.insert(backups).values({
        createdAt: new Date(restore.takenAt),
        fileName: restore.archive,
        bytes: restore.bytes,
        sha256: restore.sha256,
        kind: restore.kind,
      });
    }
    const value = JSON.stringify(restoreRecordSchema.parse(restore));
    await tx.insert(settings).values({ key: LAST_RESTORE, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
  });
}

/** The latest restore into this database, or null (none, or a record this version cannot read). */
export async function lastRestore(db: Db): Promise<RestoreRecord | null> {
  const [row] = await db.select().from(settings).where(eq(settings.key, LAST_RESTORE)).limit(1);
  if (!row) return null;
  try {
    return restoreRecordSchema.parse(JSON.parse(row.value));
  } catch {
    return null;
  }
}
