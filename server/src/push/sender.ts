/**
 * Sends Web Push when a message is stored, to the members of its conversation who subscribed and
 * have no socket open anywhere (the presence table). Never in the send's way: the send hands the
 * conversation over and returns; the work waits in bounded queues, each request has a deadline,
 * and what does not fit is dropped (the member still finds the message when they next open the
 * app). The payload is the constant PUSH_PAYLOAD, encrypted by web-push (aes128gcm, RFC 8291).
 */
import fs from 'node:fs';
import https from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { GENERAL_CONVERSATION, isGroupConversation, PUSH_PAYLOAD } from '@enclave/protocol';
import { and, eq, gt, inArray, ne, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import webpush from 'web-push';
import { inGoodStanding } from '../auth/sessions';
import type { Db } from '../db/client';
import { groupMembers, presence, pushSubscriptions, sessions, users } from '../db/schema';
import { PRESENCE_TTL_MS } from '../realtime/presence';
import { pushEndpointRefusal } from './endpoints';
import { deleteEndpoint, openSession, sweepEndedSubscriptions } from './subscriptions';
import type { VapidKeys } from './vapid';

/** At most one push per member per this long, whatever the number of messages (per instance). */
export const PUSH_COALESCE_MS = 30_000;
/** Conversations with stored messages waiting for their look-up; past this, new ones push nobody. */
export const PUSH_PENDING_CONVERSATIONS = 64;
/**
 * Messages stored within this long of each other share one look-up per conversation: a busy
 * channel costs the database a few look-ups a second, not one per message.
 */
export const PUSH_LOOKUP_DELAY_MS = 250;
/** Requests to push services waiting; past this, new ones are dropped. */
export const PUSH_PENDING_REQUESTS = 512;
/** Requests to push services in flight at once. */
export const PUSH_CONCURRENCY = 4;
/** Subscriptions one stored message reaches at most. */
export const PUSH_TARGETS_PER_MESSAGE = 500;
/** Members remembered as pushed recently; when full of recent ones, further members wait their turn. */
export const PUSH_TRACKED_MEMBERS = 10_000;
/** A push service's whole answer must come within this. */
export const PUSH_REQUEST_TIMEOUT_MS = 10_000;
/** How long a push service keeps a push for a browser that is offline. */
export const PUSH_TTL_SECONDS = 24 * 60 * 60;
/** How often subscriptions of expired sessions are deleted. */
const SWEEP_MS = 10 * 60 * 1000;

type Target = { userId: string; endpoint: string; p256dh: string; auth: string };
type Stored = { conversationId: string; senderId: string; peerId: string | null };
/** A conversation's messages waiting for their look-up: who sent them, and the DMs' peers. */
type Pending = { conversationId: string; senders: Set<string>; peers: Set<string> };

export type PushOptions = {
  keys: VapidKeys;
  subject: string;
  allowedOrigins?: readonly string[];
  /** A PEM file of extra certificate authorities for push endpoints (PUSH_ENDPOINT_CA). */
  caFile?: string;
};

export class PushSender {
  /** By conversation, in the order their first message came. */
  private readonly pending = new Map<string, Pending>();
  private readonly requests: Target[] = [];
  /** When each member was last pushed (ms), the oldest first (a Map keeps insertion order). */
  private readonly lastPushed = new Map<string, number>();
  private lookingUp: Promise<void> | null = null;
  private inFlight = new Set<Promise<void>>();
  private closed = false;
  private readonly agent: https.Agent | undefined;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly opts: PushOptions,
    private readonly log: FastifyBaseLogger,
  ) {
    this.agent = opts.caFile ? new https.Agent({ ca: [...tls.rootCertificates, fs.readFileSync(opts.caFile, 'utf8')] }) : undefined;
    this.sweepTimer = setInterval(() => {
      sweepEndedSubscriptions(db).catch((err: unknown) => log.warn({ err }, 'could not delete the push subscriptions of ended sessions'));
    }, SWEEP_MS).unref();
  }

  get publicKey(): string {
    return this.opts.keys.publicKey;
  }

  /** A message was stored: its conversation's other members may be told. Returns at once. */
  messageStored({ conversationId, senderId, peerId }: Stored): void {
    if (this.closed) return;
    let entry = this.pending.get(conversationId);
    if (!entry) {
      if (this.pending.size >= PUSH_PENDING_CONVERSATIONS) return;
      entry = { conversationId, senders: new Set(), peers: new Set() };
      this.pending.set(conversationId, entry);
    }
    entry.senders.add(senderId);
    if (peerId) entry.peers.add(peerId);
    this.lookingUp ??= this.lookUp().finally(() => (this.lookingUp = null));
  }

  /** Stops taking work and waits for what is in flight (each request within its deadline). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweepTimer);
    this.pending.clear();
    this.requests.length = 0;
    await this.lookingUp;
    await Promise.all(this.inFlight);
    this.agent?.destroy();
  }

  /** Waits for the messages stored meanwhile, then looks up each conversation once, in order; again while more come. */
  private async lookUp(): Promise<void> {
    while (this.pending.size && !this.closed) {
      await sleep(PUSH_LOOKUP_DELAY_MS, undefined, { ref: false });
      const batch = [...this.pending.values()];
      this.pending.clear();
      for (const next of batch) if (!this.closed) await this.pushFor(next);
    }
  }

  private async pushFor(next: Pending): Promise<void> {
    try {
      const targets = await this.targetsOf(next);
      const now = Date.now();
      // Every subscription of a member is pushed, then the member waits PUSH_COALESCE_MS.
      const pushed = new Set<string>();
      for (const t of targets) {
        if (!pushed.has(t.userId) && !this.mayPush(t.userId, now)) continue;
        if (this.requests.length >= PUSH_PENDING_REQUESTS) break;
        pushed.add(t.userId);
        this.requests.push(t);
      }
      for (const userId of pushed) this.markPushed(userId, now);
      this.startRequests();
    } catch (err) {
      this.log.warn({ err }, 'could not look up whom to push');
    }
  }

  /**
   * Subscriptions of the members the conversation's messages went to (a DM's peers; else every
   * member but a sole sender: each of several senders was written to by another), in good
   * standing, with a live session and no socket.
   */
  private async targetsOf({ conversationId, senders, peers }: Pending): Promise<Target[]> {
    const group = isGroupConversation(conversationId);
    const dm = conversationId !== GENERAL_CONVERSATION && !group;
    if (dm && !peers.size) return [];
    const [soleSender] = senders.size === 1 ? senders : [];
    const recent = this.recentlyPushed(Date.now());
    const liveSince = new Date(Date.now() - PRESENCE_TTL_MS);
    return this.db
      .select({
        userId: pushSubscriptions.userId,
        endpoint: pushSubscriptions.endpoint,
        p256dh: pushSubscriptions.p256dh,
        auth: pushSubscriptions.auth,
      })
      .from(pushSubscriptions)
      .innerJoin(sessions, eq(sessions.id, pushSubscriptions.sessionId))
      .innerJoin(users, eq(users.id, pushSubscriptions.userId))
      .where(
        and(
          openSession(),
          inGoodStanding(),
          soleSender && !dm ? ne(pushSubscriptions.userId, soleSender) : undefined,
          dm ? inArray(pushSubscriptions.userId, [...peers]) : undefined,
          group
            ? sql`exists (select 1 from ${groupMembers} where ${groupMembers.groupId} = ${conversationId} and ${groupMembers.userId} = ${pushSubscriptions.userId})`
            : undefined,
          recent.length ? sql`${pushSubscriptions.userId} <> ALL(${sql.param(recent)}::uuid[])` : undefined,
          sql`not exists (select 1 from ${presence} where ${presence.userId} = ${pushSubscriptions.userId} and ${gt(presence.updatedAt, liveSince)})`,
        ),
      )
      .limit(PUSH_TARGETS_PER_MESSAGE);
  }

  private recentlyPushed(now: number): string[] {
    this.forget(now);
    return [...this.lastPushed.keys()];
  }

  /** Drops the members whose wait is over (the oldest come first). */
  private forget(now: number): void {
    for (const [userId, at] of this.lastPushed) {
      if (now - at < PUSH_COALESCE_MS) break;
      this.lastPushed.delete(userId);
    }
  }

  private mayPush(userId: string, now: number): boolean {
    const at = this.lastPushed.get(userId);
    if (at !== undefined && now - at < PUSH_COALESCE_MS) return false;
    return this.lastPushed.size < PUSH_TRACKED_MEMBERS || this.lastPushed.has(userId);
  }

  private markPushed(userId: string, now: number): void {
    this.lastPushed.delete(userId);
    this.lastPushed.set(userId, now);
  }

  private startRequests(): void {
    while (this.inFlight.size < PUSH_CONCURRENCY && this.requests.length && !this.closed) {
      const target = this.requests.shift()!;
      const done: Promise<void> = this.push(target)
        .catch((err: unknown) => this.log.warn({ err, host: hostOf(target.endpoint) }, 'push not delivered'))
        .finally(() => {
          this.inFlight.delete(done);
          this.startRequests();
        });
      this.inFlight.add(done);
    }
  }

  /** One push: web-push encrypts and signs; the request is ours, so that it has a deadline and reads no answer body. */
  private async push(target: Target): Promise<void> {
    // The allowlist may have narrowed since the subscription was stored.
    if (pushEndpointRefusal(target.endpoint, this.opts.allowedOrigins)) return deleteEndpoint(this.db, target.endpoint);
    const details = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      PUSH_PAYLOAD,
      {
        vapidDetails: { subject: this.opts.subject, publicKey: this.opts.keys.publicKey, privateKey: this.opts.keys.privateKey },
        TTL: PUSH_TTL_SECONDS,
        urgency: 'normal',
        contentEncoding: 'aes128gcm',
      },
    );
    const status = await post(details.endpoint, details.headers as Record<string, string>, details.body, this.agent);
    // The subscription is gone for good (RFC 8030 §7.3): forget it.
    if (status === 404 || status === 410) return deleteEndpoint(this.db, target.endpoint);
    if (status < 200 || status > 299) this.log.warn({ status, host: hostOf(target.endpoint) }, 'push service refused a push');
  }
}

/** POSTs and answers the status; the answer's body is not read, and the whole exchange ends within PUSH_REQUEST_TIMEOUT_MS. */
function post(endpoint: string, headers: Record<string, string>, body: Buffer, agent: https.Agent | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request(endpoint, { method: 'POST', headers, agent, timeout: PUSH_REQUEST_TIMEOUT_MS }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', reject);
    });
    const deadline = setTimeout(() => req.destroy(new Error('push service did not answer in time')), PUSH_REQUEST_TIMEOUT_MS);
    req.on('timeout', () => req.destroy(new Error('push service did not answer in time')));
    req.on('error', reject);
    req.on('close', () => clearTimeout(deadline));
    req.end(body);
  });
}

/** An endpoint's host only: the rest is the browser's capability and stays out of the log. */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'unknown';
  }
}
