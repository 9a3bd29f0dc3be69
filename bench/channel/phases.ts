/** The channel bench's first phases: 2. the first key, made for all N by the first message; 3. one join. */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { busyMs, byRoute, paths } from './calls';
import { epochInForce, sharesOf, waitForCoverage, type Bench } from './context';
import { joinReal, type RealMember } from './members';
import { servedRequests } from './server-log';
import { bytes, count, ms, spread } from './report';

/** Past this a key still lacking shares stops the bench. */
const COVERAGE_LIMIT_MS = 10 * 60_000;

/**
 * 2. The first message in the channel makes its first key; the sender's client may put it in force
 * before it has wrapped it for everyone and wrap for the rest afterwards, so the phase lasts until
 * every member holds a share.
 */
export async function firstKey(b: Bench): Promise<void> {
  const { member, label } = b.senders[0]!;
  const phase = '2. first key';
  b.options.progress(`${phase}: ${label} sends the channel's first message`);
  const start = performance.now();
  const reply = await member.send('all', 'the first message, under the first channel key');
  const answered = performance.now();
  if (reply.status !== 201) throw new Error(`the first message was refused: ${reply.status} ${reply.error?.error}`);
  const epoch = await epochInForce(b.db);
  if (!epoch) throw new Error('no channel key in force after the first message');
  await waitForCoverage(b.db, epoch, COVERAGE_LIMIT_MS);
  const uploads = b.log.uploadsOf(epoch);
  const done = Math.max(answered, ...uploads.map((u) => u.end));
  const calls = b.log.calls.filter((c) => c.member === label && c.start >= start && c.end <= done);
  const fetches = b.list.fetches.filter((f) => f.start >= start && f.start <= done);
  const listMs = sum(fetches.map((f) => f.ms));
  const inCalls = busyMs(calls.filter((c) => c.path !== paths.users));
  const early = uploads.filter((u) => u.end <= answered);
  const wrappers = new Set(uploads.map((u) => u.member));
  // The server's last log lines reach the file a moment after its answers.
  await sleep(200);
  const logged = servedRequests(b.server.logFile);
  b.rows.push(
    { phase, figure: 'first message answered (its key made)', value: ms(answered - start) },
    { phase, figure: 'first message → every member holding a share (last upload answered)', value: ms(done - start) },
    {
      phase,
      figure: 'uploads of shares: count, total body bytes; before the message was answered',
      value: `${uploads.length}, ${bytes(sum(uploads.map((u) => u.requestBytes)))}; ${early.length} (${count(sum(early.map((u) => u.upload!.shares)))} shares)`,
    },
    {
      phase,
      figure: "time answering them, as the client saw it; the server's own (its log; min / median / max)",
      value: `${spread(uploads.map((u) => u.end - u.start))}; ${spread(logged.filter((r) => r.path === paths.shares && r.start >= start && r.start <= done).map((r) => r.ms))}`,
    },
    {
      phase,
      figure: 'member list fetched for the check (GET /api/users/all, parsed)',
      value: fetches.length ? `${fetches.map((f) => ms(f.ms)).join(', ')} (${count(fetches[0]!.members)} members)` : 'none (cached)',
    },
    {
      phase,
      figure: "the sender's calls until the last upload, by route (count, time)",
      value: byRoute(
        calls.filter((c) => c.path !== paths.users),
        ms,
      ),
    },
    {
      phase,
      figure: "the sender's client work until the last upload: share-key checks, the wrap (time outside its calls)",
      value: ms(done - start - inCalls - listMs),
    },
    {
      phase,
      figure: 'shares stored of the key; wrapped by',
      value: `${count(await sharesOf(b.db, epoch))} (members: ${count(b.options.members)}); ${[...wrappers].join(', ')}`,
    },
  );
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** How long the newcomer's share may take after the senders' messages. */
const SHARE_WAIT_MS = 30_000;

/** 3. A member joins; each sender then sends once: one share in all, by the first. */
export async function oneJoin(b: Bench, inviteKey: string, run: string): Promise<RealMember> {
  const phase = '3. one join';
  const { rows: now } = await b.db.query<{ t: Date }>('SELECT clock_timestamp() AS t');
  const newcomer = await joinReal(b.server.url, inviteKey, b.senders.length, run, 'newcomer', b.list, b.log);
  b.options.progress(`${phase}: the newcomer joined; each sender sends once`);
  const sent: { label: string; id: string; ms: number; messageId: number; text: string }[] = [];
  const sendsStart = performance.now();
  for (const { member, label } of b.senders) {
    const text = `after the join, from ${label}`;
    const start = performance.now();
    const reply = await member.send('all', text);
    if (reply.status !== 201) throw new Error(`${label}'s message after the join was refused: ${reply.status} ${reply.error?.error}`);
    sent.push({ label, id: member.id, ms: performance.now() - start, messageId: reply.body!.message.id, text });
  }
  const epoch = await epochInForce(b.db);
  if (!epoch) throw new Error('no channel key in force after the join');
  // Whoever wraps for the newcomer may do it beside their send rather than before it.
  const deadline = performance.now() + SHARE_WAIT_MS;
  while ((await sharesOf(b.db, epoch, newcomer.member.id)) === 0 && performance.now() < deadline) await sleep(100);
  const newcomerHolds = await sharesOf(b.db, epoch, newcomer.member.id);
  const theirShare = b.log.uploadsOf(epoch).find((u) => u.start >= sendsStart);
  const { rows: wraps } = await b.db.query<{ wrapper: string; shares: number }>(
    `SELECT w.wrapper_id AS wrapper, count(s.recipient_id)::int AS shares
     FROM channel_wraps w LEFT JOIN channel_shares s ON s.wrap_id = w.id
     WHERE w.created_at > $1 GROUP BY w.wrapper_id`,
    [now[0]!.t],
  );
  const sharesBy = (id: string) => wraps.find((w) => w.wrapper === id)?.shares ?? 0;
  const history = await newcomer.member.history('all', { limit: 100 });
  const theirs = history.filter((m) => sent.some((s) => s.messageId === m.id));
  const read = await newcomer.member.decrypt(theirs);
  const opened = sent.filter((s) => read.some((r) => r.id === s.messageId && r.text === s.text)).length;
  b.rows.push(
    { phase, figure: 'registration and sign-in of the newcomer', value: ms(newcomer.joinMs) },
    {
      phase,
      figure: 'shares uploaded after the join, per sender (in send order)',
      value: `${sent.map((s) => sharesBy(s.id)).join(', ')}; total ${sum(wraps.map((w) => w.shares))} (expected 1)`,
    },
    {
      phase,
      figure: "the newcomer's share of the key in force",
      value:
        newcomerHolds === 1
          ? `held${theirShare ? `, uploaded by ${theirShare.member}, answered ${ms(theirShare.end - sendsStart)} after the first send started` : ''}`
          : `MISSING ${SHARE_WAIT_MS / 1000} s after the sends`,
    },
    { phase, figure: 'send latency per sender, one after another (in send order)', value: sent.map((s) => ms(s.ms)).join(', ') },
    { phase, figure: "the senders' messages the newcomer decrypts", value: `${opened} of ${sent.length}` },
  );
  return newcomer;
}
