/**
 * Carries events between server instances: in-process by default, Redis pub/sub when REDIS_URL is
 * set, so that a message posted to one instance reaches sockets held by another.
 */
import { EventEmitter } from 'node:events';
import { serverFrameSchema } from '@enclave/protocol';
import { Redis } from 'ioredis';
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
]);
export type BusEvent = z.infer<typeof busEventSchema>;

export type Bus = {
  publish(event: BusEvent): Promise<void>;
  subscribe(handler: (event: BusEvent) => void): void;
  close(): Promise<void>;
};

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

/** `prefix` keeps deployments (and test runs) that share one Redis apart. */
export async function redisBus(url: string, prefix: string, onError: (err: unknown) => void): Promise<Bus> {
  const CHANNEL = `${prefix}:bus`;
  const pub = new Redis(url, { lazyConnect: true });
  const sub = new Redis(url, { lazyConnect: true });
  await Promise.all([pub.connect(), sub.connect()]);
  await sub.subscribe(CHANNEL);
  const handlers: ((event: BusEvent) => void)[] = [];
  sub.on('message', (_channel, raw: string) => {
    let parsed;
    try {
      parsed = busEventSchema.safeParse(JSON.parse(raw));
    } catch (err) {
      return onError(err);
    }
    if (!parsed.success) return onError(parsed.error);
    for (const h of handlers) h(parsed.data);
  });
  pub.on('error', onError);
  sub.on('error', onError);
  return {
    async publish(event) {
      await pub.publish(CHANNEL, JSON.stringify(event));
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
