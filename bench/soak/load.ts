/**
 * The load: `concurrency` sends in flight until `messages` are acknowledged, from members picked at
 * random, to the general channel or to another member; meanwhile the churn steps (join, disconnect,
 * logout, ban in turn) spread evenly over the load, and the checkpoints at which the server is
 * measured. The soak's own pace keeps each member under the server's per-member send limit; what
 * the server refuses anyway is counted, and the message sent again as a new one.
 */
import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorCodes, type Message } from '@enclave/protocol';
import { defaultRateLimits } from '../../server/src/config';
import { ReplyError } from '../../server/src/testing/member';
import { retryAfterMs, type SoakMember } from './members';
import type { Return, SoakNetwork } from './network';

export type LoadOptions = {
  messages: number;
  concurrency: number;
  /** Share of direct messages, in percent. */
  directPercent: number;
  churnSteps: number;
  checkpoints: number;
  rateLimitWindowMs: number;
};

/** An acknowledged message: the text sent, and where. */
export type Acked = { text: string; conversationId: string };

export type LoadResult = {
  /** Acknowledged messages by the id the server gave them. */
  acked: Map<number, Acked>;
  /** Ids the server answered 201 for more than once (a second message answered with the first). */
  duplicateAcks: number;
  /** Refusals by status, code and route. */
  refused: Record<string, number>;
  durationMs: number;
  /** How the members still away come back. */
  away: Return[];
};

/** Members away come back this many churn steps later (the banned unbanned by the creator). */
const AWAY_STEPS = 2;
/** Sends per member and window the soak allows itself: under the server's limit, with a margin. */
const SENDS_PER_WINDOW = defaultRateLimits.send.max - 5;

/** Polls `done` every 20 ms. */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await sleep(20);
}

const pick = <T>(candidates: T[]): T | undefined => (candidates.length ? candidates[randomInt(candidates.length)] : undefined);

export async function runLoad(
  net: SoakNetwork,
  o: LoadOptions,
  checkpoint: (label: string, acknowledged: number) => Promise<void>,
): Promise<LoadResult> {
  const acked = new Map<number, Acked>();
  const refused: Record<string, number> = {};
  let duplicateAcks = 0;
  let claimed = 0;
  let seq = 0;
  let done = false;
  let failure: unknown = null;

  const refuse = (why: string, member: SoakMember, status: number, headers: Headers) => {
    refused[why] = (refused[why] ?? 0) + 1;
    if (status === 429) member.pausedUntil = Date.now() + retryAfterMs(headers);
  };
  const underLimit = (m: SoakMember, now: number) => {
    while (m.recentSends.length && now - (m.recentSends[0] ?? 0) > o.rateLimitWindowMs * 1.2) m.recentSends.shift();
    return m.recentSends.length < SENDS_PER_WINDOW;
  };
  const available = (m: SoakMember) => m.state === 'online' && !m.busy;
  const pickSender = () => {
    const now = Date.now();
    return pick(net.members.filter((m) => available(m) && m.sending === 0 && m.pausedUntil <= now && underLimit(m, now)));
  };
  const pickPeer = (sender: SoakMember) => pick(net.members.filter((m) => m !== sender && available(m)));

  /** One message; true when the server acknowledged it. */
  const sendOne = async (sender: SoakMember, peer: SoakMember | undefined): Promise<boolean> => {
    const text = `soak message ${++seq} from ${sender.name} to ${peer?.name ?? 'everyone'}`;
    try {
      const res = await sender.send(peer?.id ?? 'all', text);
      if (res.status === 201 && res.body) {
        record(res.body.message, text);
        return true;
      }
      refuse(`${res.status} ${res.error?.code ?? ''}`, sender, res.status, res.headers);
    } catch (error) {
      // Refusals before the message: members changed twice under one rotation, or a limit.
      if (!(error instanceof ReplyError) || !(error.status === 429 || error.code === errorCodes.membershipChanged)) throw error;
      refuse(`${error.status} ${error.code ?? ''} (${error.route.path})`, sender, error.status, error.outcome.headers);
    }
    return false;
  };
  const record = (message: Message, text: string) => {
    if (acked.has(message.id)) duplicateAcks += 1;
    acked.set(message.id, { text, conversationId: message.conversationId });
  };

  const worker = async () => {
    // `claimed` counts sends acknowledged or in flight: the load stops at exactly `messages`.
    while (!failure && claimed < o.messages) {
      const sender = pickSender();
      if (!sender) {
        await sleep(2);
        continue;
      }
      const peer = randomInt(100) < o.directPercent ? pickPeer(sender) : undefined;
      claimed += 1;
      sender.sending += 1;
      sender.recentSends.push(Date.now());
      if (peer) peer.receiving += 1;
      try {
        if (!(await sendOne(sender, peer))) claimed -= 1;
      } catch (error) {
        claimed -= 1;
        failure ??= error;
      } finally {
        sender.sending -= 1;
        if (peer) peer.receiving -= 1;
      }
    }
  };

  const returns: { step: number; run: Return }[] = [];
  const runReturns = async (step: number) => {
    for (const due of returns.filter((r) => r.step <= step)) {
      returns.splice(returns.indexOf(due), 1);
      await due.run();
    }
  };
  let logouts = 0;
  const churnStep = async (step: number) => {
    const kind = (['join', 'disconnect', 'logout', 'ban'] as const)[(step - 1) % 4];
    if (kind === 'join') {
      await net.join(false);
      net.counts.joinedDuringLoad += 1;
      return;
    }
    // Keep some of the members who are not steady sending and receiving.
    const candidates = net.members.filter((m) => !m.steady && available(m));
    const m = candidates.length > 2 ? pick(candidates) : undefined;
    if (!m) return;
    m.busy = true;
    await m.idle();
    let back: Return | null;
    if (kind === 'disconnect') back = await net.disconnect(m);
    // Every other member who logs out leaves for good.
    else if (kind === 'logout') back = await net.logout(m, ++logouts % 2 === 0);
    else back = await net.ban(m);
    if (back) returns.push({ step: step + AWAY_STEPS, run: back });
    m.busy = false;
  };

  const atShare = (i: number, of: number) => Math.floor((i * o.messages) / (of + 1));
  const churn = async () => {
    for (let step = 1; step <= o.churnSteps; step++) {
      await until(() => acked.size >= atShare(step, o.churnSteps) || done || failure !== null);
      if (done || failure) return;
      await runReturns(step);
      await churnStep(step);
    }
  };
  const measure = async () => {
    for (let k = 1; k <= o.checkpoints; k++) {
      await until(() => acked.size >= atShare(k, o.checkpoints) || done || failure !== null);
      if (done || failure) return;
      await checkpoint(`load ${Math.round((100 * k) / (o.checkpoints + 1))}%`, acked.size);
    }
  };

  const start = Date.now();
  const background = [churn(), measure()].map((p) => p.catch((error: unknown) => void (failure ??= error)));
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  const durationMs = Date.now() - start;
  done = true;
  await Promise.all(background);
  if (failure) throw failure;
  return { acked, duplicateAcks, refused, durationMs, away: returns.map((r) => r.run) };
}
