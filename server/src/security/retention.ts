/**
 * Retention of security events and audit entries (SECURITY_EVENT_RETENTION_DAYS, docs/security.md
 * §10): each instance deletes what is older than the retention, in batches.
 */
import { asc, inArray, lt } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client';
import { securityEvents } from '../db/schema';

/** Rows one retention batch deletes; the sweep repeats until a batch is short. */
const RETENTION_BATCH = 5_000;
/** How often each instance deletes events past their retention (the first time a minute after start). */
export const RETENTION_SWEEP_MS = 60 * 60 * 1000;
const RETENTION_FIRST_MS = 60 * 1000;

/**
 * Deletes the events and audit entries created more than `days` ago, oldest first, in batches (each
 * a short transaction); several instances may run it at once (SKIP LOCKED hands a row to one).
 * Answers how many it deleted.
 */
export async function deleteExpiredEvents(db: Db, days: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 24 * 60 * 60 * 1000);
  let deleted = 0;
  for (;;) {
    const batch = db
      .select({ id: securityEvents.id })
      .from(securityEvents)
      .where(lt(securityEvents.createdAt, cutoff))
      .orderBy(asc(securityEvents.id))
      .limit(RETENTION_BATCH)
      .for('update', { skipLocked: true });
    const gone = await db.delete(securityEvents).where(inArray(securityEvents.id, batch)).returning({ id: securityEvents.id });
    deleted += gone.length;
    if (gone.length < RETENTION_BATCH) return deleted;
  }
}

/** Runs `deleteExpiredEvents` a minute after start and then every `everyMs`; answers a stop that waits for a run in progress. */
export function startEventRetention(db: Db, opts: { days: number; everyMs: number; log: FastifyBaseLogger }): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const run = () => {
    running = deleteExpiredEvents(db, opts.days)
      .then(
        (n) => n && opts.log.info({ securityEvents: n }, 'deleted security events past their retention'),
        // The database may be away for a while: the next run takes what this one left.
        (err: unknown) => opts.log.warn({ err }, 'could not delete security events past their retention'),
      )
      .finally(() => {
        running = null;
        if (timer) timer = setTimeout(run, opts.everyMs).unref();
      });
  };
  timer = setTimeout(run, Math.min(RETENTION_FIRST_MS, opts.everyMs)).unref();
  return async () => {
    if (timer) clearTimeout(timer);
    timer = null;
    await running;
  };
}
