/**
 * 4. One removal: the creator bans a simulated member while every sender keeps sending, one message
 * every 400 ms each (25 per 10 s, under the send limit of 30), from a second before the ban until
 * the new key is in force, every member holds a share of it (a client may activate it first and
 * wrap for the rest afterwards) and every sender has had two messages acknowledged that started
 * after its activation. Nobody is told to make the key: the members' clients hear `keyRetired` and
 * one claims, as in the web app. Every send's start, answer and latency, and every call of the
 * re-key, are recorded. Beside them the probe sender (probe.ts), whose client runs in a worker
 * thread of its own, sends every PROBE_SPACING_MS over the same span: its waits are those of a
 * member whose client shares no event loop with the re-keying one, as in a browser.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { routes } from '@enclave/protocol';
import { TestMember } from '../../server/src/testing/member';
import { busyMs, byRoute, paths, type Call, type CallLog } from './calls';
import { COVERAGE_POLL_MS, epochInForce, keyedMembers, sharesOf, type Bench, type Send } from './context';
import type { ProbeSend } from './probe';
import { bytes, count, median, ms, spread } from './report';
import { servedRequests } from './server-log';

/** One send every 400 ms per sender: 25 per 10 s, under the send limit of 30. */
const SPACING_MS = 400;
/** Sends before the ban, to have the loops going. */
const LEAD_MS = 1000;
/** Past this the phase is given up: the re-key did not settle. */
const LIMIT_MS = 15 * 60_000;
/**
 * One send of the probe's every 375 ms: 26.7 per 10 s, under the send limit of 30 per member
 * (server/src/config.ts `send`) with room for a few resends refused 409 membership_changed.
 */
export const PROBE_SPACING_MS = 375;
/** Sends each sender must have had answered, started after the activation, before the phase ends. */
const AFTER_ACTIVATION = 2;

const longest = (sends: readonly Send[]) =>
  sends.length
    ? sends.reduce((a, b) => (b.end - b.start > a.end - a.start ? b : a))
    : { sender: 'none', start: Number.NaN, end: Number.NaN, status: 0 };
/**
 * Time within a send spent in its member's calls, as the client timed them: the server's answer, and
 * any wait of this process's event loop before it was read (the rest is its client's own work).
 */
const inCalls = (log: CallLog, s: Send) => busyMs(log.calls.filter((c) => c.member === s.sender && c.start >= s.start && c.end <= s.end));

export async function removal(b: Bench, bannedId: string): Promise<void> {
  const phase = '4. one removal';
  const { log, senders, db, probe } = b;
  const before = await epochInForce(db);
  const sends: Send[] = [];
  let banStart = Infinity;
  let activatedAt: number | null = null;
  let covered: string | null = null;
  let failure: string | null = null;
  const deadline = performance.now() + LIMIT_MS;
  const activation = () => (activatedAt ??= log.of(paths.activate, banStart).find((c) => c.status === 200)?.end ?? null);
  // A refusal of the re-key other than another member's claim (409) would stall it: stop there and say which.
  const refused = () => log.calls.find((c) => c.start >= banStart && c.path.startsWith(paths.state) && c.status >= 400 && c.status !== 409);
  const settled = () => {
    const at = activation();
    return (
      at !== null &&
      covered !== null &&
      senders.every((r) => sends.filter((s) => s.sender === r.label && s.start >= at && s.status === 201).length >= AFTER_ACTIVATION)
    );
  };
  const going = () => failure === null && !settled() && performance.now() < deadline;

  const loop = async (label: string, member: TestMember, offset: number) => {
    await sleep(offset);
    for (let k = 0; going(); k++) {
      const send: Send = { sender: label, start: performance.now(), end: Number.NaN, status: 0 };
      sends.push(send);
      try {
        send.status = (await member.send('all', `during the removal, ${label}, #${k}`)).status;
      } catch (error) {
        send.error = error instanceof Error ? error.message : String(error);
        failure ??= `${label}'s send failed: ${send.error}`;
      }
      send.end = performance.now();
      const call = refused();
      if (call) failure ??= `${call.member}: ${call.method} ${call.path} answered ${call.status}`;
      const wait = send.start + SPACING_MS - performance.now();
      if (wait > 0) await sleep(wait);
    }
  };

  b.options.progress(`${phase}: ${senders.length} senders sending; the creator bans a simulated member in ${LEAD_MS} ms`);
  const cpuBefore = b.server.cpuSeconds();
  // The bench's own event loop: every real member's client runs on it, the claimer's wrap included.
  const warm = await probe.warm();
  if (warm.status !== 201) throw new Error(`the probe's warm-up send was answered ${warm.status}${warm.error ? `: ${warm.error}` : ''}`);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  probe.start();
  const loops = senders.map((r, i) => loop(r.label, r.member, (i * SPACING_MS) / senders.length));

  await sleep(LEAD_MS);
  banStart = performance.now();
  const creator = new TestMember.Anonymous(b.server.url);
  await creator.call(
    routes.creatorBan,
    { body: { userId: bannedId, reason: 'channel bench' } },
    { authorization: `SuperAdmin ${b.masterKey}` },
  );
  const banEnd = performance.now();
  // Every member holding a share of the new key, from the database, once it is in force; the
  // members are counted once, and only the key's shares at each look.
  const members = await keyedMembers(db);
  const coverage = (async () => {
    while (going() && covered === null) {
      const epoch = activation() === null ? null : await epochInForce(db);
      if (epoch && epoch !== before && (await sharesOf(db, epoch)) >= members) covered = epoch;
      else await sleep(COVERAGE_POLL_MS);
    }
  })();
  const progress = setInterval(() => {
    const claim = log.of(paths.claim, banStart).find((c) => c.status === 200);
    const uploads = claim ? log.of(paths.shares, claim.start, Infinity, claim.member).length : 0;
    b.options.progress(
      `${phase}: ${((performance.now() - banStart) / 1000).toFixed(0)} s after the ban: ${claim ? `${claim.member} claimed, ${uploads} uploads` : 'no claim yet'}${activation() !== null ? ', key in force' : ''}`,
    );
  }, 5000);
  let probed: Awaited<ReturnType<typeof probe.stop>>;
  try {
    await Promise.all([...loops, coverage]);
  } finally {
    clearInterval(progress);
    probed = await probe.stop();
  }
  const cpu = b.server.cpuSeconds() - cpuBefore;
  const phaseMs = performance.now() - banStart + LEAD_MS;
  lag.disable();
  if (failure) throw new Error(`the removal stopped: ${failure}`);
  const activated = activation();
  if (activated === null || !settled()) throw new Error(`the removal did not settle within ${LIMIT_MS / 60_000} min`);

  const claims = log.of(paths.claim, banStart);
  const claim = claims.find((c) => c.status === 200)!;
  const epoch = covered!;
  const uploads = log.uploadsOf(epoch);
  const claimers = uploads.filter((u) => u.member === claim.member);
  const done = Math.max(activated, ...uploads.map((u) => u.end));
  const claimerDone = Math.max(activated, ...claimers.map((u) => u.end));
  const rekeyCalls = log.calls.filter((c) => c.member === claim.member && c.start >= claim.start && c.end <= claimerDone);
  const early = uploads.filter((u) => u.end <= activated);
  const after = sends.filter((s) => s.start >= banStart);
  const during = uploads.length ? after.filter((s) => s.start >= uploads[0]!.start && s.start <= done) : [];
  const settledSends = sends.filter((s) => s.start >= activated);
  const { rows: made } = await db.query<{ by: string }>('SELECT created_by AS by FROM channel_epochs WHERE id = $1', [epoch]);
  const maker = made[0] ? (b.labels.get(made[0].by) ?? made[0].by) : 'nobody';
  const { rows: writable } = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM users WHERE NOT is_banned AND NOT is_compromised',
  );
  const stored = await sharesOf(db, epoch);
  const bannedHolds = await sharesOf(db, epoch, bannedId);
  const statePolls = log.of(paths.state, banStart, activated).length;
  const waitOf = (s: Send) => `${ms(s.end - s.start)} (${s.sender}; ${ms(inCalls(log, s))} of it in its calls, as the client timed them)`;
  // Its last lines reach the file a moment after the answers.
  await sleep(200);
  const served = servedRequests(b.server.logFile);
  const slowestServed = (from: number, to: number) => {
    const set = served.filter((r) => (r.path === paths.send || r.path === paths.senderEpoch) && r.start >= from && r.start <= to);
    return set.length ? `${ms(Math.max(...set.map((r) => r.ms)))} (of ${set.length})` : 'none';
  };
  const states = served.filter((r) => r.path === paths.state && r.start >= claim.start && r.start <= done).map((r) => r.ms);
  const statesServed = states.length ? `${ms(median(states))} / ${ms(Math.max(...states))} (of ${states.length})` : 'none';
  const uploadsServed = served.filter((r) => r.path === paths.shares && r.start >= claim.start && r.start <= done).map((r) => r.ms);
  const wrappers = [...new Set(uploads.map((u) => u.member))];
  const probeSends = probed.sends;
  const probeAfter = probeSends.filter((s) => s.start >= banStart);
  const probeFirst = probeAfter[0];
  const probeDuring = uploads.length ? probeAfter.filter((s) => s.start >= uploads[0]!.start && s.start <= done) : [];
  const probeSettled = probeSends.filter((s) => s.start >= activated);
  const probeWait = (s: ProbeSend) => `${ms(s.end - s.start)} (${ms(s.inCalls)} of it in its calls)`;
  const probeLongest = (set: readonly ProbeSend[]) =>
    set.length
      ? `${probeWait(set.reduce((a, s) => (s.end - s.start > a.end - a.start ? s : a)))}, of ${set.length} probe sends`
      : 'no probe send started then';
  const probeRefused = probeSends.filter((s) => s.status !== 201);

  b.rows.push(
    { phase, figure: "the creator's ban answered", value: ms(banEnd - banStart) },
    { phase, figure: 'ban → new key activated (its activation answered)', value: ms(activated - banStart) },
    { phase, figure: 'ban → every member holding a share of it (last upload answered)', value: ms(done - banStart) },
    {
      phase,
      figure: 'claimed by',
      value:
        `${claim.member}${maker !== claim.member ? ` (NOT EXPECTED: the database says ${maker})` : ''}, ` +
        `${claim.member === senders[0]!.label ? 'whose client had checked every member for the first key' : 'whose client had checked no member yet'}; ` +
        `${claims.length - 1} other claim(s) refused; ${statePolls} key-state requests by all members until activation`,
    },
    { phase, figure: "claimer's wrap: claim → its last upload answered", value: ms(claimerDone - claim.start) },
    {
      phase,
      figure: "of which the claimer's client work (share-key checks, wrap: time outside its calls)",
      value: ms(claimerDone - claim.start - busyMs(rekeyCalls)),
    },
    { phase, figure: "the claimer's calls meanwhile, by route (count, time)", value: byRoute(rekeyCalls, ms) },
    {
      phase,
      figure: 'uploads of shares: count, total body bytes, largest; before the activation',
      value: `${uploads.length}, ${bytes(sumBytes(uploads))}, ${bytes(Math.max(0, ...uploads.map((u) => u.requestBytes)))}; ${early.length} (${count(early.reduce((a, u) => a + u.upload!.shares, 0))} shares)${wrappers.length > 1 || wrappers[0] !== claim.member ? `; by ${wrappers.join(', ')}` : ''}`,
    },
    {
      phase,
      figure: "time answering them, as the client saw it (min / median / max; sum); the server's own (its log: min / median / max)",
      value: `${spread(uploads.map(dur))}; ${ms(uploads.reduce((a, u) => a + dur(u), 0))}; ${spread(uploadsServed)}`,
    },
    {
      phase,
      figure: 'sends (all, refused or failed)',
      value: `${count(sends.length)}, ${sends.filter((s) => s.status !== 201).length}`,
    },
    {
      phase,
      figure: 'median wait of a send before the ban',
      value: ms(median(sends.filter((s) => s.end < banStart).map((s) => s.end - s.start))),
    },
    { phase, figure: 'longest wait of a send started after the ban', value: waitOf(longest(after)) },
    {
      phase,
      figure: 'longest wait of a send started while the shares were uploaded (first to last upload)',
      value: during.length ? `${waitOf(longest(during))}, of ${during.length} sends` : 'no send started then',
    },
    {
      phase,
      figure: 'longest wait of a send started after the activation',
      value: `${waitOf(longest(settledSends))}, of ${settledSends.length} sends`,
    },
    {
      phase,
      figure: `probe (its client in a worker thread of its own, no socket; a send every ${PROBE_SPACING_MS} ms): sends (all, refused or failed), median wait; warm-up send before the phase`,
      value:
        `${count(probeSends.length)}, ${probeRefused.length}${probeRefused.length ? ` (${[...new Set(probeRefused.map((s) => s.error ?? String(s.status)))].join('; ')})` : ''}, ` +
        `${ms(median(probeSends.map((s) => s.end - s.start)))}; ${ms(warm.end - warm.start)}`,
    },
    {
      phase,
      figure: 'probe: first send after the ban (waits for the activation)',
      value: probeFirst
        ? `${probeWait(probeFirst)}, started ${ms(probeFirst.start - banStart)} after the ban, answered ${ms(probeFirst.end - activated)} after the activation; ${probed.held.length ? `its client claimed ${probed.held.length}× (held ${ms(probed.held.reduce((a, h) => a + h.end - h.start, 0))} in all until another member's claim was in)` : 'its client did not claim (another member had)'}`
        : 'no probe send started then',
    },
    { phase, figure: 'probe: longest wait of a send started after the ban', value: probeLongest(probeAfter) },
    {
      phase,
      figure: 'probe: longest wait of a send started while the shares were uploaded (first to last upload)',
      value: probeLongest(probeDuring),
    },
    { phase, figure: 'probe: longest wait of a send started after the activation', value: probeLongest(probeSettled) },
    {
      phase,
      figure:
        "the server's own time for message and sender-epoch requests (its log; longest): started after the ban; while the shares were uploaded",
      value: `${slowestServed(banStart, Infinity)}; ${uploads.length ? slowestServed(uploads[0]!.start, done) : 'none'}`,
    },
    {
      phase,
      figure: "the server's own time for key-state requests from the claim to the last upload (its log; median / max)",
      value: statesServed,
    },
    {
      phase,
      figure: "the bench process's event-loop delay (every real member's client; p99 / max)",
      value: `${ms(lag.percentile(99) / 1e6)} / ${ms(lag.max / 1e6)}`,
    },
    {
      phase,
      figure: 'server CPU over the phase (user + system)',
      value: `${(cpu * 1000).toFixed(0)} ms over ${ms(phaseMs)}`,
    },
    {
      phase,
      figure: 'shares of the new key (members not banned)',
      value: `${count(stored)} (${count(writable[0]!.n)}); the key changed: ${epoch !== before ? 'yes' : 'no'}`,
    },
    { phase, figure: "the banned member's share of the new key", value: bannedHolds === 0 ? 'none' : `${bannedHolds}: NOT EXPECTED` },
  );
  b.options.progress(`${phase}: ${sends.length} sends; key activated ${ms(activated - banStart)} after the ban`);
  b.sends = [...sends, ...probeSends.map((s) => ({ sender: probe.label, ...s }))].map((s) => ({
    ...s,
    start: s.start - banStart,
    end: s.end - banStart,
  }));
}

const dur = (c: Call) => c.end - c.start;
const sumBytes = (calls: readonly Call[]) => calls.reduce((a, c) => a + c.requestBytes, 0);
