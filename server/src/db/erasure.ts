/**
 * Erasure that reaches the disk (docs/security.md §4, "Deleted means gone"). Setting a column to
 * NULL or deleting a row leaves the old row version in the table's file until its page is
 * rewritten, and the statement that once wrote it in the write-ahead log until that segment goes.
 * After secrets are erased (a message's ciphertext, a wiped member's key bundle and shares), the
 * tables that held them are scrubbed within `afterMs`:
 *
 * - embedded database (PGlite, files in DATA_DIR/db): `VACUUM FULL` rewrites each table into a new
 *   file holding only live rows and unlinks the old one (a plain VACUUM leaves the dead bytes in
 *   the page's free space); then the log moves to a new segment and a checkpoint removes the older
 *   ones, which the database opens with `wal_recycle=off` so that they are deleted, not kept for
 *   reuse with their old contents (db/client.ts).
 * - PostgreSQL: a plain `VACUUM`, which takes no lock that stops sends. The cluster's files are
 *   not Enclave's to rewrite: freed page space and WAL segments keep old bytes until PostgreSQL
 *   reuses them (docs/security.md §4 says what that means for an operator).
 *
 * A scrub also runs before every embedded backup (backup/backup.ts), and once `afterMs` after the
 * server starts, for whatever a stopped server had not scrubbed yet.
 */
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { embeddedClient, type Db } from './client';

/** The tables whose rows can hold a secret that gets erased. */
export const erasableTables = ['messages', 'users', 'epoch_shares', 'channel_shares'] as const;
export type ErasableTable = (typeof erasableTables)[number];

/** Rewrites `tables` so that erased rows' old versions are in no file of the embedded database (see above). */
export async function scrub(db: Db, tables: readonly ErasableTable[]): Promise<void> {
  if (!tables.length) return;
  const embedded = embeddedClient(db);
  if (!embedded) {
    await db.execute(sql.raw(`VACUUM ${tables.join(', ')}`));
    return;
  }
  await embedded.exec(`VACUUM FULL ${tables.join(', ')}`);
  // Every record written so far, the erased rows' inserts included, is now in a finished segment,
  // and the checkpoint that follows needs none of them: it deletes them.
  await embedded.query('SELECT pg_switch_wal()');
  await embedded.exec('CHECKPOINT');
}

/**
 * Scrubs the tables that had secrets erased, once, `afterMs` after the first erasure: erasures in
 * between share one scrub, whose cost (a table rewrite, bench/RESULTS.md) is then paid at most once
 * per `afterMs`. Starts with every table pending: a server stopped before its scrub may have left
 * erased rows behind.
 */
export class Scrubber {
  private readonly pending = new Set<ErasableTable>(erasableTables);
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  /** Whether anything was erased since the start (the start's own pending scrub aside). */
  private erasedHere = false;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly afterMs: number,
    private readonly log: FastifyBaseLogger,
  ) {
    this.schedule();
  }

  /** Secrets in `tables` were erased, and committed: their old versions go at the next scrub. */
  erased(...tables: ErasableTable[]): void {
    this.erasedHere = true;
    for (const t of tables) this.pending.add(t);
    this.schedule();
  }

  /** Scrubs what is pending now (after the scrub under way, if any). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.running.then(async () => {
      const tables = [...this.pending];
      this.pending.clear();
      try {
        await scrub(this.db, tables);
      } catch (err) {
        // Taken again at the next scrub; the database may be away for a while.
        for (const t of tables) this.pending.add(t);
        this.log.warn({ err }, 'could not scrub erased rows from the database files');
        this.schedule();
      }
    });
    return this.running;
  }

  /**
   * Before the database closes: what this run erased is scrubbed now, so that a stopped server's
   * files hold none of it (the start's own pending scrub is left to the next start).
   */
  async close(): Promise<void> {
    if (this.erasedHere) await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.closed || this.timer || !this.pending.size) return;
    this.timer = setTimeout(() => void this.flush(), this.afterMs);
    this.timer.unref();
  }
}
