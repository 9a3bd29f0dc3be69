/**
 * Group commit: writes that arrive while a commit is under way wait for it and then share the next
 * transaction, one commit and one write-ahead-log flush for all of them, instead of one each. A
 * write alone goes at once (no timer adds latency to a quiet server); under load the batch is
 * whatever arrived during the previous commit, up to `maxBatch`.
 *
 * Each write's promise settles only after its transaction committed: a caller that answers the
 * client after it never acknowledges what a crash before the commit would lose. When one write
 * fails (its own error), the transaction rolls back, that write alone is failed and the others run
 * again in a new one; when the database itself fails (unavailable, or the commit fails), every
 * write of the batch fails and none was stored.
 */
import type { Db, Tx } from './client';
import { isDatabaseUnavailable } from './client';

type Work<T> = (tx: Db | Tx) => Promise<T>;
type Item = { work: Work<unknown>; single: boolean; resolve: (value: unknown) => void; reject: (err: unknown) => void };

export class GroupCommit {
  private readonly queue: Item[] = [];
  private running = 0;

  constructor(
    private readonly db: Db,
    /** Writes per transaction at most. */
    private readonly maxBatch: number,
    /** Transactions under way at once (1 on the embedded database, which has one connection). */
    private readonly parallel: number,
  ) {}

  /**
   * Runs `work` in a transaction shared with the writes that arrive with it; settles after the
   * commit. `single`: the work is one statement, which alone needs no transaction of its own (a
   * write on a quiet server then costs one round trip, not three).
   */
  run<T>(work: Work<T>, opts: { single: boolean }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, single: opts.single, resolve: resolve as (value: unknown) => void, reject });
      if (this.running < this.parallel) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running += 1;
    try {
      while (this.queue.length) await this.commit(this.queue.splice(0, this.maxBatch));
    } finally {
      this.running -= 1;
    }
  }

  private async commit(batch: Item[]): Promise<void> {
    let items = batch;
    if (items.length === 1 && items[0]!.single) {
      const [item] = items as [Item];
      await item.work(this.db).then(item.resolve, item.reject);
      return;
    }
    while (items.length) {
      const results: unknown[] = [];
      let failed: { at: number; err: unknown } | null = null;
      try {
        await this.db.transaction(async (tx) => {
          for (const [at, item] of items.entries()) {
            try {
              results.push(await item.work(tx));
            } catch (err) {
              failed = { at, err };
              throw err;
            }
          }
        });
      } catch (err) {
        const own = failed as { at: number; err: unknown } | null;
        if (!own || isDatabaseUnavailable(own.err)) {
          for (const item of items) item.reject(err);
          return;
        }
        items[own.at]!.reject(own.err);
        items = items.filter((_, i) => i !== own.at);
        continue;
      }
      items.forEach((item, i) => item.resolve(results[i]));
      return;
    }
  }
}
