/**
 * Carries events between server instances: in-process by default, Redis pub/sub when REDIS_URL is
 * set, so that a message posted to one instance reaches sockets held by another.
 *
 * Redis pub/sub keeps nothing for a subscriber that is away: an event published while a connection
 * is down (Redis restarting, say) is lost. The bus says so with a `resync` event once it is whole
 * again, and the gateway then has every socket catch up from the database (gateway.ts).
 *
 * Two versions of the server may share one bus during an upgrade (docs/architecture.md §3): each
 * event carries the version of its publisher, fields this version does not know are dropped,
 * fields it needs and an older publisher lacks take their defaults, and an event that still does
 * not parse is logged and counted, never dropped without a trace.
 */
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { serverFrameSchema } from '@enclave/protocol';
import { z } from 'zod';

/**
 * The shape of frames and bus events this version publishes, sent as `v` with each event (none
 * before it: 0). Raise it when a frame or a bus event changes.
 */
export const BUS_VERSION = 1;

// Plain z.object options: a newer publisher's extra fields (and `v`) are dropped, not refused.
export const busEventSchema = z.discriminatedUnion('kind', [
  /** Send a frame to every authenticated socket ('all') or to the sockets of these members. */
  z.object({ kind: z.literal('deliver'), to: z.union([z.literal('all'), z.array(z.string())]), frame: serverFrameSchema }),
  /** Tell and close the sockets of a session, of these sessions, or of every session of these members. */
  z.object({
    kind: z.literal('end_sessions'),
    sessionId: z.string().optional(),
    sessionIds: z.array(z.string()).optional(),
    userIds: z.array(z.string()).optional(),
    frame: serverFrameSchema,
    /** Set by the instance that publishes it to time its own sockets' closing (Gateway.endSessionsTimed). */
    timingId: z.string().optional(),
  }),
  /** The blocked addresses changed: every instance reloads its set (security/blocks.ts). */
  z.object({ kind: z.literal('blocks_changed') }),
  /** Events may have been lost (a connection to Redis was cut, a publish failed): every socket catches up. */
  z.object({ kind: z.literal('resync') }),
]);
export type BusEvent = z.infer<typeof busEventSchema>;

export type Bus = {
  publish(event: BusEvent): Promise<void>;
  subscribe(handler: (event: BusEvent) => void): void;
  close(): Promise<void>;
  /** Events from Redis that did not parse (each also passed to `onError`); absent on a bus without Redis. */
  refused?(): number;
  /** Resolves once Redis answers a PING with the subscription in place; absent on a bus without Redis (the readiness check, http/readiness.ts). */
  ping?(): Promise<void>;
  /**
   * Calls `observer` with the seconds each of this instance's own events took from its publish to
   * its arrival back from Redis: Redis's latency plus this instance's event-loop queue, which
   * every delivery to its sockets waits on too. Measured on one clock, so no clock skew between
   * hosts enters it. Absent on a bus without Redis.
   */
  observeLag?(observer: (seconds: number) => void): void;
};

/** A publish that Redis has not answered by then fails (and is made good by a `resync`). */
const PUBLISH_TIMEOUT_MS = 2000;

export function memoryBus(): Bus {
  const emitter = new EventEmitter();
  return {
    async publish(event) {
      emitter.emit('event', event);
    },
    subscribe(handler) {
      emitter.on('event', handler);
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}

/**
 * `prefix` keeps deployments (and test runs) that share one Redis apart. Both connections
 * reconnect by themselves (ioredis, with back-off up to 2 s); after a reconnect the subscriber
 * subscribes again, then hands a `resync` to this instance's handlers, and after a failed publish
 * the publisher sends a `resync` to every instance as soon as Redis answers again. Redis away at
 * start is the same: the bus is returned at once (its first connection failure passed to
 * `onError`), and subscribes once Redis answers.
 */
export async function redisBus(
  url: string,
  prefix: string,
  onError: (err: unknown) => void,
  /** Told once of each other version heard on the bus (an upgrade under way). */
  onOtherVersion: (version: number) => void = () => undefined,
): Promise<Bus> {
  const CHANNEL = `${prefix}:bus`;
  // Loaded here, not at the top: a server without Redis need not pay for importing ioredis at start.
  const { Redis } = await import('ioredis');
  // A publish fails at once while Redis is away instead of waiting in ioredis's queue: it is news
  // of something already stored, and the answer to the request that stored it must not wait.
  const pub = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: PUBLISH_TIMEOUT_MS,
  });
  // Subscribing again is done below, so that the resync comes after the subscription is back.
  const sub = new Redis(url, { lazyConnect: true, autoResubscribe: false });
  const handlers: ((event: BusEvent) => void)[] = [];
  const deliver = (event: BusEvent) => {
    for (const h of handlers) h(event);
  };

  const versionsHeard = new Set([BUS_VERSION]);
  let refused = 0;
  // Tells this instance's events from the others' when they come back (bus lag).
  const self = randomUUID();
  const lagObservers: ((seconds: number) => void)[] = [];
  const encode = (event: BusEvent) => JSON.stringify({ v: BUS_VERSION, from: self, at: Date.now(), ...event });
  sub.on('message', (_channel, raw: string) => {
    const json = parseJson(raw);
    if (json?.from === self && typeof json.at === 'number') {
      const seconds = Math.max(0, Date.now() - json.at) / 1000;
      for (const observe of lagObservers) observe(seconds);
    }
    const version = typeof json?.v === 'number' ? json.v : 0;
    if (!versionsHeard.has(version)) {
      versionsHeard.add(version);
      onOtherVersion(version);
    }
    const parsed = busEventSchema.safeParse(json);
    if (parsed.success) return deliver(parsed.data);
    refused += 1;
    onError(new BusEventRefused(String(json?.kind ?? '-'), String(json?.frame?.type ?? '-'), version, parsed.error));
  });
  // A connection away fails each attempt (up to every 2 s): its error is passed on once per outage.
  for (const connection of [pub, sub]) {
    let reported = false;
    connection.on('ready', () => (reported = false));
    connection.on('error', (err) => {
      if (!reported) onError(err);
      reported = true;
    });
  }

  // Their failures are the 'error' events above; ioredis keeps trying either way.
  pub.connect().catch(() => undefined);
  let subscribed = false;
  const subscribedAtStart = await sub.connect().then(
    () => sub.subscribe(CHANNEL),
    () => null,
  );
  subscribed = subscribedAtStart !== null;
  // Every later 'ready' is a reconnect (or the first connection, Redis having been away at start):
  // whatever was published meanwhile never reached us.
  sub.on('ready', () => {
    sub.subscribe(CHANNEL).then(() => {
      subscribed = true;
      deliver({ kind: 'resync' });
    }, onError);
  });
  sub.on('close', () => (subscribed = false));

  // Whether a publish failed since the last resync this instance sent.
  let lost = false;
  const sendResync = () => {
    lost = false;
    pub.publish(CHANNEL, encode({ kind: 'resync' })).catch((err: unknown) => {
      lost = true;
      onError(err);
    });
  };
  pub.on('ready', () => {
    if (lost) sendResync();
  });

  return {
    async publish(event) {
      try {
        await pub.publish(CHANNEL, encode(event));
      } catch (err) {
        lost = true;
        throw err;
      }
      if (lost) sendResync();
    },
    subscribe(handler) {
      handlers.push(handler);
    },
    async close() {
      sub.disconnect();
      pub.disconnect();
    },
    refused: () => refused,
    observeLag(observer) {
      lagObservers.push(observer);
    },
    async ping() {
      if (!subscribed) throw new Error('not subscribed to the bus');
      await pub.ping();
    },
  };
}

/** What the refusal of an event names, read before its schema is applied; null (refused) when not JSON. */
function parseJson(raw: string): { v?: unknown; from?: unknown; at?: unknown; kind?: unknown; frame?: { type?: unknown } } | null {
  try {
    return JSON.parse(raw) as never;
  } catch {
    return null;
  }
}

/** An event from the bus that this version cannot read: its kind, its frame's type and its publisher's version. */
export class BusEventRefused extends Error {
  constructor(kind: string, frameType: string, version: number, error: z.ZodError) {
    super(
      `bus event refused (kind ${kind}, frame ${frameType}, from version ${version}): ${error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
    this.name = 'BusEventRefused';
  }
}
