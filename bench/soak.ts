/**
 * `npm run bench:soak`: the soak (bench/soak/run.ts) against the production build. Environment:
 * SOAK_MESSAGES (100000), SOAK_MEMBERS (16 at the start), SOAK_CONCURRENCY (8), SOAK_CHURN_STEPS
 * (one per 1,000 messages, at least 12), DATABASE_URL (a PostgreSQL server to make a fresh
 * database on, dropped afterwards; the embedded database without it), SOAK_REPORT (a file for the
 * JSON report). Progress on stderr, the Markdown report on stdout; exits 1 when an invariant failed.
 */
import fs from 'node:fs';
import { markdown } from './soak/report';
import { runSoak, soakOptions } from './soak/run';
import { positiveEnv } from './env';

const messages = positiveEnv('SOAK_MESSAGES', 100_000);
const defaults = soakOptions(messages);
const report = await runSoak(
  soakOptions(messages, {
    initialMembers: positiveEnv('SOAK_MEMBERS', defaults.initialMembers),
    concurrency: positiveEnv('SOAK_CONCURRENCY', defaults.concurrency),
    churnSteps: positiveEnv('SOAK_CHURN_STEPS', defaults.churnSteps),
    postgresUrl: process.env.DATABASE_URL || undefined,
    progress: (line) => process.stderr.write(`${line}\n`),
  }),
);
if (process.env.SOAK_REPORT) fs.writeFileSync(process.env.SOAK_REPORT, `${JSON.stringify(report, null, 2)}\n`);
process.stdout.write(`${markdown(report)}\n`);
process.exitCode = report.invariants.every((i) => i.ok) ? 0 : 1;
