/**
 * Carries events between server instances: in-process by default, Redis pub/sub when REDIS_URL is
 * set, so that a message posted to one instance reaches sockets held by another.
 *
 * Redis pub/sub keeps nothing for a subscriber that is away: an event published while a connection
 * is down (Redis restarting, say) is lost. The bus says so with a `resync` event once it is whole
 * again, and the gateway then has every socket catch up from the database (gateway.ts).
 */
import { EventEmitter } from 'node:events';
import { serverFrameSchema } from '@enclave/protocol';
import { z } from 'zod';

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
 * reconnect by themselves (ioredis); after a reconnect the subscriber subscribes again, then
 * hands a `resync` to this instance's handlers, and after a failed publish the publisher sends a
 * `resync` to every instance as soon as Redis answers again.
 */
export async function redisBus(url: string, prefix: string, onError: (err: unknown) => void): Promise<Bus> {
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

  sub.on('message', (_channel, raw: string) => {
    let parsed;
    try {
      parsed = busEventSchema.safeParse(JSON.parse(raw));
    } catch (err) {
      return onError(err);
    }
    if (!parsed.success) return onError(parsed.error);
    deliver(parsed.data);
  });
  pub.on('error', onError);
  sub.on('error', onError);

  await Promise.all([pub.connect(), sub.connect()]);
  await sub.subscribe(CHANNEL);
  // Every later 'ready' is a reconnect: whatever was published meanwhile never reached us.
  sub.on('ready', () => {
    sub.subscribe(CHANNEL).then(() => deliver({ kind: 'resync' }), onError);
  });

  // Whether a publish failed since the last resync this instance sent.
  let lost = false;
  const sendResync = () => {
    lost = false;
    pub.publish(CHANNEL, JSON.stringify({ kind: 'resync' } satisfies BusEvent)).catch((err: unknown) => {
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
        await pub.publish(CHANNEL, JSON.stringify(event));
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
  };
}
