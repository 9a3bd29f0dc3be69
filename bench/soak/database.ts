/**
 * The soak's database: the embedded one in a data directory of its own (read once the server has
 * stopped: only one process may open PGlite), or, with a PostgreSQL URL, a database created on that
 * server for this run and dropped afterwards (read while the server runs).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { count, isNull } from 'drizzle-orm';
import pg from 'pg';
import { openDatabase, type Db } from '../../server/src/db/client';
import { epochs, epochShares, messages, presence, securityEvents, sessions, users } from '../../server/src/db/schema';

export type RowCounts = {
  messages: number;
  epochs: number;
  epoch_shares: number;
  sessions: number;
  /** Sessions neither revoked nor expired. */
  live_sessions: number;
  presence: number;
  security_events: number;
  users: number;
};

export type SoakDatabase = {
  kind: 'embedded' | 'postgres';
  /** What the report calls it. */
  label: string;
  /** The server's data directory (its log, the embedded database, the operator socket). */
  dataDir: string;
  /** Environment for the server. */
  env: Record<string, string>;
  /** Whether it can be read while the server runs. */
  readableWhileRunning: boolean;
  /** Opens the database, runs `read`, closes it. */
  read<T>(read: (db: Db) => Promise<T>): Promise<T>;
  /** Removes the data directory, and the PostgreSQL database if one was made. */
  drop(): Promise<void>;
};

/** A fresh database: embedded unless `postgresUrl` names a PostgreSQL server to make one on. */
export async function freshDatabase(postgresUrl?: string): Promise<SoakDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'enclave-soak-'));
  const removeDir = () => fs.rmSync(dataDir, { recursive: true, force: true });
  if (!postgresUrl) {
    return {
      kind: 'embedded',
      label: 'embedded (PGlite)',
      dataDir,
      env: { DATA_DIR: dataDir },
      readableWhileRunning: false,
      read: (read) => withDatabase({ dataDir }, read),
      drop: async () => removeDir(),
    };
  }
  const name = `enclave_soak_${randomBytes(6).toString('hex')}`;
  await adminQuery(postgresUrl, `CREATE DATABASE ${name}`);
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return {
    kind: 'postgres',
    label: `PostgreSQL (${(await adminQuery(postgresUrl, 'SHOW server_version'))[0]?.server_version ?? '?'}, fresh database ${name})`,
    dataDir,
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString() },
    readableWhileRunning: true,
    read: (read) => withDatabase({ dataDir, databaseUrl: url.toString() }, read),
    drop: async () => {
      await adminQuery(postgresUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      removeDir();
    },
  };
}

async function adminQuery(url: string, text: string): Promise<Record<string, string>[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Record<string, string>>(text)).rows;
  } finally {
    await client.end();
  }
}

async function withDatabase<T>(opts: { dataDir: string; databaseUrl?: string }, read: (db: Db) => Promise<T>): Promise<T> {
  // openDatabase applies the migrations: the server applied them already, so this changes nothing.
  const database = await openDatabase(opts);
  try {
    return await read(database.db);
  } finally {
    await database.close();
  }
}

/** Rows per table, as the report lists them. */
export async function rowCounts(db: Db): Promise<RowCounts> {
  const rows = async (query: Promise<{ n: number }[]>) => (await query)[0]?.n ?? 0;
  const now = new Date();
  const liveSessions = await db.select({ id: sessions.id, expiresAt: sessions.expiresAt }).from(sessions).where(isNull(sessions.revokedAt));
  return {
    messages: await rows(db.select({ n: count() }).from(messages)),
    epochs: await rows(db.select({ n: count() }).from(epochs)),
    epoch_shares: await rows(db.select({ n: count() }).from(epochShares)),
    sessions: await rows(db.select({ n: count() }).from(sessions)),
    live_sessions: liveSessions.filter((s) => s.expiresAt > now).length,
    presence: await rows(db.select({ n: count() }).from(presence)),
    security_events: await rows(db.select({ n: count() }).from(securityEvents)),
    users: await rows(db.select({ n: count() }).from(users)),
  };
}

/** Every stored message's id and its sender's client id, to compare with what was acknowledged. */
export async function storedMessages(db: Db): Promise<{ id: number; senderId: string; clientMessageId: string | null }[]> {
  return db.select({ id: messages.id, senderId: messages.senderId, clientMessageId: messages.clientMessageId }).from(messages);
}
