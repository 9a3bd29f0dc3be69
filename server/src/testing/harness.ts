/**
 * Test harness: a real server on a real port, over PGlite in a temporary directory or over a
 * PostgreSQL database made for this run and dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp, type App } from '../app';
import { ATTACHMENT_ORPHAN_MS, ATTACHMENT_SWEEP_MS, defaultRateLimits, type Config } from '../config';
import { ensureMasterKey } from '../creator/master-key';
import { openDatabase, type Database } from '../db/client';
import { memoryBus, redisBus, type Bus } from '../realtime/bus';
import { copiedPglite } from './pglite-template';

export type Backend = 'pglite' | 'postgres';

/** The creator's key in tests: `Authorization: SuperAdmin ${TEST_MASTER_KEY}`. */
export const TEST_MASTER_KEY = 'ab'.repeat(64);
export const creatorHeaders = { authorization: `SuperAdmin ${TEST_MASTER_KEY}` };

/** Backends the integration suite runs against; TEST_BACKENDS narrows it (e.g. "pglite"). */
export const backends: Backend[] = (process.env.TEST_BACKENDS ?? 'pglite,postgres')
  .split(',')
  .filter((b): b is Backend => b === 'pglite' || b === 'postgres');

/** Whether the tests that need Redis run; TEST_REDIS=0 skips them (scripts/test-all.sh sets it when Redis does not answer). */
export const redisEnabled = process.env.TEST_REDIS !== '0';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
/** This test file's own Redis namespace: other runs on the same Redis never see its frames or counters. */
const REDIS_PREFIX = `enclave-test-${randomBytes(6).toString('hex')}`;

/** A database of its own for one test file, removed by `drop`. */
export async function makeDatabase(
  backend: Backend,
  opts: { onPoolError?: (err: Error) => void; onQuery?: (query: string) => void } = {},
): Promise<{ database: Database; url?: string; drop: () => Promise<void> }> {
  if (backend === 'pglite') {
    const { database, dataDir } = await copiedPglite({ onQuery: opts.onQuery });
    return { database, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `enclave_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  const database = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: os.tmpdir(),
    onPoolError: opts.onPoolError,
    onQuery: opts.onQuery,
  });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      const a = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export type TestServer = {
  url: string;
  app: App;
  /** Every line the server logged. */
  logs: string[];
  close: () => Promise<void>;
};

/**
 * Limits high enough that a suite's own traffic from 127.0.0.1 never trips them; the tests of the
 * limits themselves use the defaults. Wrong master keys keep theirs: a suite sends few, and the
 * creator console's tests count them.
 */
export const relaxedRateLimits: Config['rateLimits'] = {
  login: { max: 10_000, windowMs: 60_000 },
  loginPerAddress: { max: 10_000, windowMs: 60_000 },
  loginRequests: { max: 10_000, windowMs: 60_000 },
  validateKey: { max: 10_000, windowMs: 60_000 },
  register: { max: 10_000, windowMs: 60_000 },
  send: { max: 10_000, windowMs: 60_000 },
  epoch: { max: 10_000, windowMs: 60_000 },
  channelShares: { max: 10_000, windowMs: 60_000 },
  timerChange: { max: 10_000, windowMs: 60_000 },
  groupChange: { max: 10_000, windowMs: 60_000 },
  readPosition: { max: 10_000, windowMs: 60_000 },
  p2pConnect: { max: 10_000, windowMs: 60_000 },
  p2pSignal: { max: 10_000, windowMs: 60_000 },
  masterKey: defaultRateLimits.masterKey,
  breach: { max: 10_000, windowMs: 60_000 },
  attachmentUpload: { max: 10_000, windowMs: 60_000 },
  attachmentDownload: { max: 10_000, windowMs: 60_000 },
  decoy: { max: 10_000, windowMs: 60_000 },
};

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    dataDir: os.tmpdir(),
    production: false,
    logLevel: 'info',
    trustProxy: false,
    redisPrefix: REDIS_PREFIX,
    rateLimits: defaultRateLimits,
    breachPolicy: 'log',
    iceServers: [],
    maxInFlight: 128,
    erasureScrubMs: 300_000,
    securityEventRetentionDays: 30,
    attachments: {
      store: { kind: 'local' },
      quotaBytes: 500 * 1024 * 1024,
      orphanAfterMs: ATTACHMENT_ORPHAN_MS,
      sweepEveryMs: ATTACHMENT_SWEEP_MS,
    },
    ...overrides,
  };
}

export type ServerOptions = {
  config?: Partial<Config>;
  /** Meets the other instances through Redis: the bus (unless `bus` is given) and the rate-limit counters. */
  redis?: boolean;
  /** The test's own bus, to publish on or to make fail, instead of a new one; closed with the server. */
  bus?: Bus;
};

/** Starts a server over an open database. */
export async function startServer(database: Database, opts: ServerOptions = {}): Promise<TestServer> {
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const bus = opts.bus ?? (opts.redis ? await redisBus(REDIS_URL, REDIS_PREFIX, () => undefined) : memoryBus());
  const config = testConfig({ ...opts.config, ...(opts.redis ? { redisUrl: REDIS_URL } : {}) });
  // The test key unless the test configures its own (a rotation's MASTER_KEY and MASTER_KEY_PREVIOUS).
  const masterKeys = await ensureMasterKey(database.db, { ...config, masterKey: config.masterKey ?? TEST_MASTER_KEY });
  const app = await buildApp({ config, db: database.db, bus, masterKeys, logStream });
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    app,
    logs,
    close: async () => {
      await app.close();
      await bus.close();
    },
  };
}

/**
 * Holds every session read (an exclusive lock on `sessions`, in a transaction left open) until
 * the answer is called: requests that reach the server meanwhile stay in flight with their place.
 */
export async function holdSessionReads(database: Database): Promise<() => Promise<void>> {
  let release!: () => void;
  let locked!: () => void;
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const held = database.db.transaction(async (tx) => {
    await tx.execute(sql`LOCK TABLE sessions IN ACCESS EXCLUSIVE MODE`);
    locked();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await lockTaken;
  return async () => {
    release();
    await held;
  };
}
