/**
 * Members' last activity (`users.last_activity`, shown to the creator and admins), written in
 * batches: a send notes its sender here instead of writing the row, and the notes are written
 * every ACTIVITY_FLUSH_MS in one statement, so that a message costs no write of its own.
 */
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';

/** How stale a member's last activity may be: the panels that show it count days. */
export const ACTIVITY_FLUSH_MS = 5_000;

export class ActivityLog {
  /** The latest activity noted per member since the last write. */
  private pending = new Map<string, Date>();
  private readonly timer: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Db,
    private readonly log: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), ACTIVITY_FLUSH_MS);
    this.timer.unref();
  }

  note(userId: string, at: Date): void {
    const known = this.pending.get(userId);
    if (!known || known < at) this.pending.set(userId, at);
  }

  /** Writes what was noted; one write at a time, so that the last word is the newest. */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  /** Stops the timer and writes what is left (at shutdown, before the database closes). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    try {
      // Never later than what is stored (another instance may have written a newer time), and
      // never waiting for a row another transaction holds (a ban, say): a wait could deadlock with
      // it, since this statement takes many rows in no set order. A member skipped so keeps the
      // previous time until their next send: an activity time is a hint, not a record.
      await this.db.execute(sql`
        UPDATE users u SET last_activity = GREATEST(u.last_activity, v.at)
        FROM unnest(${sql.param(ids)}::uuid[], ${sql.param(ids.map((id) => batch.get(id)!.toISOString()))}::timestamptz[]) AS v(id, at)
        WHERE u.id = v.id
          AND u.id IN (SELECT id FROM users WHERE id = ANY(${sql.param(ids)}::uuid[]) FOR NO KEY UPDATE SKIP LOCKED)`);
    } catch (err) {
      // Tried again at the next flush.
      for (const [id, at] of batch) this.note(id, at);
      this.log.warn({ err }, 'could not record members’ activity');
    }
  }
}
