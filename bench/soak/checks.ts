/** What the soak checks once the load is over: fan-out, decryption, and the invariants. */
import { GENERAL_CONVERSATION } from '@enclave/protocol';
import type { RowCounts } from './database';
import type { Acked, LoadResult } from './load';
import type { SoakMember } from './members';
import type { ChurnCounts } from './network';

export type Invariant = { name: string; ok: boolean; detail: string };

export type FanOut = { name: string; expected: number; missing: number; extra: number };

/**
 * For each steady member (connected from before the first message to after the last), the
 * messages meant for them — the general channel's and their direct messages — against what their
 * socket received. Waits up to 15 s for frames still on their way.
 */
export async function fanOut(members: SoakMember[], acked: Map<number, Acked>): Promise<FanOut[]> {
  const steady = members.filter((m) => m.steady);
  const expected = new Map(
    steady.map((m) => [
      m,
      [...acked].filter(([, a]) => a.conversationId === GENERAL_CONVERSATION || a.conversationId.includes(m.id)).map(([id]) => id),
    ]),
  );
  const complete = () => steady.every((m) => m.receivedIds?.size === expected.get(m)?.length);
  for (let waited = 0; !complete() && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return steady.map((m) => {
    const want = expected.get(m) ?? [];
    const missing = want.filter((id) => !m.receivedIds?.has(id)).length;
    return { name: m.name, expected: want.length, missing, extra: (m.receivedIds?.size ?? 0) - (want.length - missing) };
  });
}

/** Each online member decrypts the sample its sockets kept, with its own keys, as the web app would. */
export async function decryptSample(
  members: SoakMember[],
  acked: Map<number, Acked>,
): Promise<{ sampled: number; ok: number; wrong: string[] }> {
  let sampled = 0;
  let ok = 0;
  const wrong: string[] = [];
  for (const m of members.filter((x) => x.state === 'online' && x.sample.length)) {
    for (const r of await m.tm.decrypt(m.sample)) {
      sampled += 1;
      if (r.text !== null && r.text === acked.get(r.id)?.text) ok += 1;
      else wrong.push(`${m.name} #${r.id}: ${r.text === null ? 'not readable' : 'not the text sent'}`);
    }
  }
  return { sampled, ok, wrong };
}

export type Facts = {
  messages: number;
  load: LoadResult;
  members: SoakMember[];
  counts: ChurnCounts;
  unclosed: string[];
  stillOnline: string[];
  fanOut: FanOut[];
  decryption: { sampled: number; ok: number; wrong: string[] };
  /** The creator's overview once everyone had left. */
  overview: { onlineUsers: number; totalMessages: number };
  /** After everyone left: the server's TCP connections on its port, the members' open sockets. */
  connections: number;
  websockets: number;
  rows: RowCounts;
  rowsWhileRunning: boolean;
  stored: { id: number; senderId: string; clientMessageId: string | null }[];
  serverErrors: string[];
  serverExitCode: number | null;
};

export function invariants(f: Facts): Invariant[] {
  const { acked, duplicateAcks } = f.load;
  const { counts, rows, members } = f;
  const storedIds = new Set(f.stored.map((s) => s.id));
  const clientIds = new Set(f.stored.map((s) => `${s.senderId}/${s.clientMessageId}`));
  const notStored = [...acked.keys()].filter((id) => !storedIds.has(id)).length;
  const notAcked = f.stored.filter((s) => !acked.has(s.id)).length;
  const endings = members.flatMap((m) => m.endings);
  // One session_ended for each socket the server closed: logouts and bans of online members.
  const expectedEndings = counts.logouts + counts.bans + counts.closedAtEnd;
  const departures = counts.disconnects + counts.logouts + counts.bans;
  const signedIn = members.filter((m) => m.state !== 'signed-out' && m.state !== 'left').map((m) => `${m.name} (${m.state})`);
  const sum = (pick: (m: SoakMember) => number) => members.reduce((n, m) => n + pick(m), 0);
  return [
    {
      name: 'every acknowledged message stored exactly once',
      ok:
        acked.size === f.messages &&
        rows.messages === acked.size &&
        notStored === 0 &&
        notAcked === 0 &&
        duplicateAcks === 0 &&
        clientIds.size === f.stored.length &&
        f.overview.totalMessages === acked.size,
      detail:
        `${acked.size} acknowledged (201), ${rows.messages} rows; ${notStored} acknowledged but not stored, ${notAcked} stored but not acknowledged, ` +
        `${duplicateAcks} answered twice, ${f.stored.length - clientIds.size} client ids stored twice; the creator's overview counts ${f.overview.totalMessages}`,
    },
    {
      name: 'steady sockets received every message meant for them, once',
      ok: f.fanOut.length > 0 && f.fanOut.every((x) => x.missing === 0 && x.extra === 0) && sum((m) => m.duplicates) === 0,
      detail: `${f.fanOut.map((x) => `${x.name}: ${x.expected - x.missing}/${x.expected}`).join(', ')}; ${sum((m) => m.duplicates)} duplicate frames on any socket; ${sum((m) => m.received)} chat frames received in all`,
    },
    {
      name: 'sampled recipients decrypt what they received',
      ok: f.decryption.sampled > 0 && f.decryption.ok === f.decryption.sampled,
      detail: `${f.decryption.ok}/${f.decryption.sampled} decrypted to the text sent${f.decryption.wrong.length ? `; ${f.decryption.wrong.slice(0, 5).join('; ')}` : ''}`,
    },
    {
      name: 'the server closed the sockets of members logged out or banned',
      ok: f.unclosed.length === 0 && endings.length === expectedEndings,
      detail:
        `${endings.length} session_ended frames for ${expectedEndings} sockets (${[...new Set(endings)].map((r) => `${r}: ${endings.filter((e) => e === r).length}`).join(', ')})` +
        (f.unclosed.length ? `; not closed: ${f.unclosed.join(', ')}` : ''),
    },
    {
      name: 'sockets back to 0',
      ok: f.connections === 0 && f.websockets === 0,
      detail: `${f.websockets} WebSockets open, ${f.connections} TCP connections held by the server after the members left`,
    },
    {
      name: 'presence back to 0',
      ok: f.stillOnline.length === 0 && f.overview.onlineUsers === 0 && rows.presence === 0,
      detail:
        `${departures - f.stillOnline.length}/${departures} members shown offline to the creator as they went away; ` +
        `${f.overview.onlineUsers} online in the creator's overview after all left; ${rows.presence} presence rows ${f.rowsWhileRunning ? 'while the server ran' : 'after it stopped'}`,
    },
    {
      name: 'sessions of logged-out members revoked',
      ok: signedIn.length === 0 && rows.live_sessions === 0 && rows.sessions === counts.logins,
      detail: `${rows.sessions} sessions for ${counts.logins} logins, ${rows.live_sessions} not revoked${signedIn.length ? `; still signed in: ${signedIn.join(', ')}` : ''}`,
    },
    {
      name: 'one user row per member who joined',
      ok: rows.users === members.length,
      detail: `${rows.users} rows, ${members.length} members`,
    },
    {
      name: 'the server logged no error and stopped cleanly',
      ok: f.serverErrors.length === 0 && f.serverExitCode === 0,
      detail: `${f.serverErrors.length} error lines; exit code ${f.serverExitCode}`,
    },
  ];
}
