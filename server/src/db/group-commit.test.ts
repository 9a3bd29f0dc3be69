/**
 * Group commit (db/group-commit.ts) on both databases: writes arriving together share a
 * transaction, each is acknowledged only after its commit, and a crash between a batch's writes
 * and its commit fails every write of the batch and loses none that was acknowledged.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { backends, makeDatabase } from '../testing/harness';
import { embeddedClient, type Database, type Db } from './client';
import { GroupCommit } from './group-commit';
import { dbBigint, rowsOf } from './rows';

describe.each(backends)('group commit (%s)', (backend) => {
  let database: Database;
  let drop: () => Promise<void>;
  let db: Db;

  beforeAll(async () => {
    ({ database, drop } = await makeDatabase(backend));
    db = database.db;
    await db.execute(sql`CREATE TABLE group_commit_probe (n int PRIMARY KEY, tx bigint NOT NULL)`);
  });
  afterAll(async () => {
    await database.close();
    await drop();
  });

  /** Inserts `n` in the transaction it is given and answers that transaction's id. */
  const insert = (n: number) => async (tx: Db) => {
    const [row] = rowsOf(
      await tx.execute(sql`INSERT INTO group_commit_probe VALUES (${n}, txid_current()) RETURNING tx`),
      z.object({ tx: dbBigint }),
    );
    return row!.tx;
  };
  const stored = async () =>
    rowsOf(await db.execute(sql`SELECT n FROM group_commit_probe ORDER BY n`), z.object({ n: z.number() })).map((r) => r.n);

  it('puts the writes that arrive during a commit into the next transaction together, in order', async () => {
    const commits = new GroupCommit(db, 64, 1);
    const txs = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => commits.run(insert(n), { single: true })));
    // The first went alone (nothing to wait for); the five that queued behind it shared one.
    expect(new Set(txs.slice(1)).size).toBe(1);
    expect(txs[0]).not.toBe(txs[1]);
    expect(await stored()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('fails a write that fails on its own and commits the others of its batch', async () => {
    const commits = new GroupCommit(db, 64, 1);
    const results = await Promise.allSettled([7, 8, 1, 9].map((n) => commits.run(insert(n), { single: true })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(await stored()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('acknowledges nothing of a batch whose connection dies before its commit, and keeps every write acknowledged before', async () => {
    expect(await new GroupCommit(db, 64, 1).run(insert(10), { single: true })).toBeTruthy();
    const commits = new GroupCommit(db, 64, 1);
    // The batch's last write kills its connection (PostgreSQL) or the database's thread (embedded)
    // after the batch's inserts and before its commit.
    const crash = async (tx: Db) => {
      await insert(13)(tx);
      const embedded = embeddedClient(db);
      if (embedded) await embedded.crash();
      else await tx.execute(sql`SELECT pg_terminate_backend(pg_backend_pid())`);
    };
    const first = commits.run(insert(11), { single: true });
    const batch = [commits.run(insert(12), { single: true }), commits.run(crash, { single: false })];
    await first;
    const outcomes = await Promise.allSettled(batch);
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    await embeddedClient(db)?.whenReady();
    expect(await stored()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});
