/**
 * `npm run bench:events`: what the creator's security metrics cost over a large events table
 * (server/src/security/metrics.ts, polled every 2 s by the console). A PostgreSQL database made for
 * the run (TEST_POSTGRES_URL) with the real schema gets EVENTS_ROWS (1,000,000) security_events
 * rows in one INSERT … SELECT generate_series: 10,000 addresses, nine event types with their
 * severities, one row in twenty about one of 100 members, one in a hundred an audit entry, counts
 * of 1 to 5, and about 1 KiB of headers each. Two spreads: the rows over the 30 days of the default
 * retention, and every row within the last 24 hours (the worst case: all of them in the metrics'
 * day). For each, the median of EVENTS_RUNS (7) calls of `securityMetrics` and of the risk panel.
 * The figures are appended to EVENTS_RESULTS (bench/RESULTS.md; empty for none).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
// The server's request decorations and plugins' types, which the modules below rely on.
import type {} from '../server/src/app';
import { risk } from '../server/src/creator/security';
import type { Database } from '../server/src/db/client';
import { securityMetrics } from '../server/src/security/metrics';
import { makeDatabase } from '../server/src/testing/harness';
import { repoRoot } from './soak/server-process';

const total = Number(process.env.EVENTS_ROWS ?? '1000000');
const runs = Number(process.env.EVENTS_RUNS ?? '7');
const resultsFile = process.env.EVENTS_RESULTS ?? path.join(repoRoot, 'bench/RESULTS.md');
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Fills security_events with `total` rows created over the last `spreadHours`. */
async function fill({ db }: Database, spreadHours: number): Promise<number> {
  await db.execute(sql`TRUNCATE security_events, users CASCADE`);
  await db.execute(sql`
    INSERT INTO users (username, login_key_hash, encryption_public_key, signing_public_key, encrypted_private_key)
    SELECT 'bench' || g, 'h' || g, 'e', 's', 'k' FROM generate_series(1, 100) g`);
  const headers = JSON.stringify({
    'user-agent': 'Mozilla/5.0 '.repeat(60),
    accept: '*/*',
    'x-forwarded-for': '203.0.113.1',
    padding: 'p'.repeat(250),
  });
  await db.execute(sql`
    WITH members AS (SELECT array_agg(id ORDER BY username) AS ids FROM users),
         kinds AS (SELECT ARRAY['login_failed','rate_limit','decoy_hit','master_key_failed','blocked_ip_hit','breach_report','canary_key_used','websocket_auth_failed','locked_access'] AS types,
                          ARRAY['medium','medium','high','high','medium','critical','critical','medium','medium'] AS severities)
    INSERT INTO security_events (type, severity, user_id, actor, ip, source, details, ip_analysis, created_at)
    SELECT k.types[1 + g % 9], k.severities[1 + g % 9],
           CASE WHEN g % 20 = 0 THEN m.ids[1 + g % 100] END,
           CASE WHEN g % 100 = 7 THEN 'creator' END,
           '10.0.' || (g % 10000 / 250) || '.' || (g % 250),
           '10.0.' || (g % 10000 / 250) || '.' || (g % 250),
           jsonb_build_object('route', '/api/decoy/' || (g % 50), 'count', 1 + g % 5,
                              'lastSeen', to_char((now() - make_interval(secs => (g::float8 / ${total}) * ${spreadHours * 3600}) + interval '30 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
           jsonb_build_object('clientIP', '10.0.0.1', 'headers', ${headers}::jsonb),
           now() - make_interval(secs => (g::float8 / ${total}) * ${spreadHours * 3600})
    FROM generate_series(1, ${total}) g, members m, kinds k`);
  await db.execute(sql`VACUUM ANALYZE security_events`);
  const size = await db.execute(sql`SELECT pg_total_relation_size('security_events') AS bytes`);
  return Number((size as unknown as { rows: { bytes: string | number }[] }).rows[0]!.bytes);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function time(call: () => Promise<unknown>): Promise<number> {
  await call(); // warm: plans and the table's pages
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  return median(times);
}

const { database, drop } = await makeDatabase('postgres');

const rows: string[] = [];
const serverVersion =
  ((await database.db.execute(sql`SHOW server_version`)) as unknown as { rows: { server_version: string }[] }).rows[0]?.server_version ??
  '';
try {
  for (const [label, hours] of [
    ['over 30 days', 30 * 24],
    ['within 24 hours', 23.9],
  ] as const) {
    const bytes = await fill(database, hours);
    const metricsMs = await time(() => securityMetrics(database.db, { breachPolicy: 'log', https: false }));
    const riskMs = await time(() => risk(database.db));
    const m = await securityMetrics(database.db, { breachPolicy: 'log', https: false });
    const row = `| ${total.toLocaleString('en')} ${label} | ${(bytes / 1e6).toFixed(0)} MB | ${m.metrics.counts.total.toLocaleString('en')} | ${m.threatIntelligence.length.toLocaleString('en')} | **${metricsMs.toFixed(0)} ms** | ${riskMs.toFixed(0)} ms |`;
    log(row);
    rows.push(row);
  }
} finally {
  await database.close();
  await drop();
}

const report = [
  `### Security metrics over a million events, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  '',
  `\`npm run bench:events\` (bench/events.ts): PostgreSQL ${serverVersion}, ${os.cpus().length} cores; median of ${runs} calls after one to warm.`,
  '',
  '| rows | table with indexes | events in the day | threat sources | `securityMetrics` | risk panel (7 days) |',
  '|---|---|---|---|---|---|',
  ...rows,
  '',
].join('\n');
process.stdout.write(`${report}\n`);
if (resultsFile) fs.appendFileSync(resultsFile, `\n${report}`);
