/**
 * The channel bench (`npm run bench:channel`, bench/channel.ts): the production build on a fresh
 * PostgreSQL database, a general channel of N members of whom S are real members' clients who
 * send and the rest rows written straight into the database (seed.ts). In turn: the first channel
 * key, made for all N by the first message; one join; one removal while every sender keeps
 * sending (removal.ts); then what it stored and what a client pays at this size (costs.ts).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { freshDatabase } from '../soak/database';
import { ServerProcess } from '../soak/server-process';
import { CallLog, sharedMemberList } from './calls';
import type { Bench, ChannelOptions, Send } from './context';
import { clientCosts, storage } from './costs';
import { inviteKeys, joinReal, type RealMember } from './members';
import { firstKey, oneJoin } from './phases';
import { Probe } from './probe';
import { PROBE_SPACING_MS, removal } from './removal';
import { count, ms, spread, type Row } from './report';
import { seedMembers } from './seed';

export type { ChannelOptions } from './context';

export type ChannelResult = { database: string; rows: Row[]; serverErrors: string[]; sends: Send[] };

export async function runChannel(o: ChannelOptions): Promise<ChannelResult> {
  const database = await freshDatabase(o.postgresUrl);
  const masterKey = randomBytes(64).toString('hex');
  const db = new pg.Pool({ connectionString: database.env.DATABASE_URL, max: 4 });
  const senders: RealMember[] = [];
  const online: RealMember[] = [];
  let server: ServerProcess | undefined;
  let probe: Probe | undefined;
  let serverErrors: string[] = [];
  const rows: Row[] = [];
  let sends: Send[] = [];
  try {
    o.progress(`starting the server on ${database.label}`);
    // TRUST_PROXY=1: each member's X-Forwarded-For is its address, for the per-address limits;
    // LOG_LEVEL=info: the server's own time for each request (server-log.ts).
    const env = { ...database.env, MASTER_KEY: masterKey, TRUST_PROXY: '1', LOG_LEVEL: 'info' };
    server = await ServerProcess.start(o.entry, env, path.join(database.dataDir, 'server.log'), { probe: false });
    const run = randomBytes(3).toString('hex');
    const list = sharedMemberList(() => senders[0]!.member);
    const log = new CallLog();

    const phase = '1. members';
    // N in all: the senders, the probe sender and the simulated members.
    const simulated = o.members - o.senders - 1;
    o.progress(`${phase}: ${simulated} simulated members into the database`);
    const seeding = await seedMembers(db, simulated, run, o.progress);
    const keys = await inviteKeys(server.url, masterKey, o.senders + 2);
    o.progress(`${phase}: ${o.senders} senders register`);
    for (let s = 0; s < o.senders; s++) {
      const sender = await joinReal(server.url, keys[s]!, s, run, `sender ${s + 1}`, list, log);
      senders.push(sender);
      online.push(sender);
    }
    o.progress(`${phase}: the probe sender registers, in a worker thread of its own`);
    const label = 'probe';
    const joined = await Probe.join({
      baseUrl: server.url,
      inviteKey: keys[o.senders + 1]!,
      index: o.senders + 1,
      run,
      label,
      spacingMs: PROBE_SPACING_MS,
    });
    probe = joined.probe;
    const b: Bench = { options: o, server, masterKey, db, log, list, senders, probe, labels: new Map(), rows, sends: [] };
    for (const s of senders) b.labels.set(s.member.id, s.label);
    b.labels.set(joined.id, label);
    b.rows.push(
      {
        phase,
        figure: 'simulated members written (SQL, batches of 5,000)',
        value: `${count(seeding.count)} in ${ms(seeding.writeMs)} (share keys made and signed: ${ms(seeding.shareKeysMs)}; key pool ${ms(seeding.poolMs)})`,
      },
      {
        phase,
        figure: 'real senders registered and signed in, one after another (each)',
        value: `${o.senders}: ${spread(senders.map((s) => s.joinMs))}`,
      },
      { phase, figure: 'the probe sender registered and signed in (in its worker thread)', value: ms(joined.joinMs) },
    );

    await firstKey(b);
    const newcomer = await oneJoin(b, keys[o.senders]!, run);
    online.push(newcomer);
    b.labels.set(newcomer.member.id, newcomer.label);
    await removal(b, seeding.firstId);
    sends = b.sends;
    await storage(b);
    await clientCosts(b, newcomer);
  } finally {
    for (const m of online) m.socket.close();
    await probe?.close();
    await db.end();
    if (server) {
      await server.stop();
      serverErrors = server.errorLines();
      if (serverErrors.length) o.progress(`server errors:\n${serverErrors.slice(0, 10).join('\n')}`);
    }
    await database.drop();
  }
  return { database: database.label, rows, serverErrors, sends };
}
