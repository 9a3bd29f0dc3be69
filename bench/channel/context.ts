/** What the channel bench's phases work with, and the database reads they share. */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import type pg from 'pg';
import type { ServerEntry, ServerProcess } from '../soak/server-process';
import type { CallLog, SharedMemberList } from './calls';
import type { RealMember } from './members';
import type { Probe } from './probe';
import type { Row } from './report';

/** How the bench runs, from bench/channel.ts's environment. */
export type ChannelOptions = {
  /** N: the channel's members before the join, senders included. */
  members: number;
  /** S: the real members who send (the probe sender, one more, is not counted in). */
  senders: number;
  /** A PostgreSQL server to make the fresh database on. */
  postgresUrl: string;
  entry: ServerEntry;
  progress: (line: string) => void;
};

/** One send of the phase; times in ms of `performance.now()`, or from the ban in `Bench.sends`. */
export type Send = { sender: string; start: number; end: number; status: number; error?: string };

/** What every phase works with. */
export type Bench = {
  options: ChannelOptions;
  server: ServerProcess;
  masterKey: string;
  db: pg.Pool;
  log: CallLog;
  list: SharedMemberList;
  senders: RealMember[];
  /** The probe sender, whose client runs in a worker thread of its own (probe.ts); registered with the senders. */
  probe: Probe;
  /** Real members' labels by id. */
  labels: Map<string, string>;
  rows: Row[];
  /** The removal's sends, their times from the ban. */
  sends: Send[];
};

/** The channel epoch in force (null after a removal, until the next is activated). */
export async function epochInForce(db: pg.Pool): Promise<string | null> {
  const { rows } = await db.query<{ id: string | null }>('SELECT channel_epoch_id AS id FROM conversations WHERE id = $1', [
    GENERAL_CONVERSATION,
  ]);
  return rows[0]?.id ?? null;
}

/** Shares stored of a channel epoch, all or `recipientId`'s. */
export async function sharesOf(db: pg.Pool, epochId: string, recipientId?: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM channel_shares WHERE channel_epoch_id = $1 AND ($2::uuid IS NULL OR recipient_id = $2::uuid)',
    [epochId, recipientId ?? null],
  );
  return rows[0]!.n;
}

/** Members who can hold a share of the channel's key: neither banned nor wiped, with a share key. */
export async function keyedMembers(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM users WHERE NOT is_banned AND NOT is_compromised AND share_public_key IS NOT NULL',
  );
  return rows[0]!.n;
}

/**
 * Waits until every member who can hold one has a share of `epochId`: a client may put a key in
 * force before it has wrapped it for everyone, and wrap for the rest afterwards. The members are
 * counted once, and only the key's shares at each look, to weigh little on the database measured.
 */
export async function waitForCoverage(db: pg.Pool, epochId: string, limitMs: number): Promise<void> {
  const deadline = performance.now() + limitMs;
  const members = await keyedMembers(db);
  while ((await sharesOf(db, epochId)) < members) {
    if (performance.now() > deadline) throw new Error(`the channel key ${epochId} still lacks shares after ${limitMs / 1000} s`);
    await sleep(COVERAGE_POLL_MS);
  }
}

/** How often the bench counts a key's shares while it waits for them all. */
export const COVERAGE_POLL_MS = 500;
