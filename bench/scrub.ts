/**
 * `npm run bench:scrub`: what a scrub of erased messages costs (server/src/db/erasure.ts). For
 * each size of SCRUB_SIZES (10,000, 100,000 and 300,000 messages of 584 bytes, as a chat frame's
 * ciphertext), an embedded database with the real schema, one message in a thousand erased, then
 * the scrub: `VACUUM FULL messages`, a log switch and a checkpoint; with TEST_POSTGRES_URL
 * answering (as the tests' harness reads it), the same on a PostgreSQL database made for the run (a plain VACUUM there). Median of
 * SCRUB_RUNS (3). The figures are appended to SCRUB_RESULTS (bench/RESULTS.md; empty for none).
 * While the embedded scrub runs the database answers nothing else: that is the pause members see.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database } from '../server/src/db/client';
import { scrub } from '../server/src/db/erasure';
import { users } from '../server/src/db/schema';
import { makeDatabase, POSTGRES_ADMIN_URL } from '../server/src/testing/harness';
import { repoRoot } from './soak/server-process';

const sizes = (process.env.SCRUB_SIZES ?? '10000,100000,300000').split(',').map(Number);
const runs = Number(process.env.SCRUB_RUNS ?? '3');
const resultsFile = process.env.SCRUB_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Fills `messages` with `n` rows of one sender and epoch, and erases one in a thousand. */
async function fill({ db }: Database, n: number): Promise<number> {
  await db.execute(sql`TRUNCATE messages, epochs, users CASCADE`);
  const [user] = await db
    .insert(users)
    .values({ username: 'bench', loginKeyHash: 'h', encryptionPublicKey: 'e', signingPublicKey: 's', encryptedPrivateKey: 'k' })
    .returning({ id: users.id });
  const epoch = '00000000-0000-4000-8000-000000000001';
  await db.execute(
    sql`INSERT INTO epochs (id, conversation_id, sender_id, membership_version) VALUES (${epoch}, 'general', ${user!.id}, 0)`,
  );
  // 584 bytes of base64 each, different in every row (nothing for TOAST to compress).
  await db.execute(sql`
    INSERT INTO messages (conversation_id, sender_id, epoch_id, index, encrypted_content)
    SELECT 'general', ${user!.id}, ${epoch}, g, substr(repeat(encode(sha512(g::text::bytea), 'base64'), 7), 1, 584)
    FROM generate_series(1, ${n}) g`);
  await db.execute(sql`UPDATE messages SET encrypted_content = NULL WHERE index % 1000 = 0`);
  // The fill's own pages written now, so that the scrub's checkpoint writes only what the scrub changed.
  await db.execute(sql`CHECKPOINT`);
  const size = await db.execute(sql`SELECT pg_total_relation_size('messages') AS bytes`);
  // Both drivers answer { rows }; the size comes as text from node-postgres.
  return Number((size as unknown as { rows: { bytes: string | number }[] }).rows[0]!.bytes);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(database: Database, n: number): Promise<{ ms: number; mb: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < runs; i++) {
    bytes = await fill(database, n);
    const t0 = performance.now();
    await scrub(database.db, ['messages']);
    times.push(performance.now() - t0);
  }
  return { ms: median(times), mb: bytes / 1e6 };
}

const rows: string[] = [];
const embedded = await makeDatabase('pglite');
const remote = await makeDatabase('postgres').catch((err: unknown) => {
  log(`no PostgreSQL at ${POSTGRES_ADMIN_URL} (${(err as Error).message}): embedded only`);
  return null;
});
try {
  for (const n of sizes) {
    const e = await measure(embedded.database, n);
    const p = remote ? await measure(remote.database, n) : null;
    const row = `| ${n.toLocaleString('en')} | ${e.mb.toFixed(0)} MB | ${e.ms.toFixed(0)} ms (${((e.ms / n) * 1000).toFixed(1)} ms per 1,000) | ${p ? `${p.ms.toFixed(0)} ms` : 'not run'} |`;
    log(row);
    rows.push(row);
  }
} finally {
  for (const made of [embedded, remote]) {
    await made?.database.close();
    await made?.drop();
  }
}

const report = [
  `### Scrub of erased messages, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `One message in a thousand erased, then \`scrub(db, ['messages'])\` (server/src/db/erasure.ts); median of ${runs}, ${os.cpus().length} cores.`,
  '',
  '| messages | table with indexes | embedded: VACUUM FULL, log switch, checkpoint | PostgreSQL: VACUUM |',
  '|---|---|---|---|',
  ...rows,
  '',
].join('\n');
process.stdout.write(`${report}\n`);
if (resultsFile) fs.appendFileSync(resultsFile, `\n${report}`);
