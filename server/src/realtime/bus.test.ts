/**
 * Two versions of the server on one bus (docs/architecture.md §3): events are read as far as this
 * version knows them, its own carry its version, and one it cannot read is logged and counted.
 * Events are published on Redis as another version's instance would, each batch followed by a
 * marker: what the bus handed on before the marker is all it will hand on.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, redisEnabled } from '../testing/harness';
import { BUS_VERSION, BusEventRefused, redisBus, type Bus, type BusEvent } from './bus';

const alice = '0b8a6c1e-8f4d-4b7a-9a55-3c2d1e0f4a11';
/** A chat message frame as the release before disappearing messages sent it: no `expiresAt`, `clientMessageId` or `targetId`. */
const previousMessage = {
  id: 7,
  conversationId: 'general',
  senderId: alice,
  senderUsername: 'alice',
  epochId: '5f0e2d4c-1b3a-4c5d-8e7f-9a0b1c2d3e4f',
  index: 0,
  encryptedContent: 'ciphertext',
  timestamp: '2026-11-26T15:00:00.000Z',
};

describe.runIf(redisEnabled)('the bus between versions', () => {
  const prefix = `enclave-test-${randomBytes(6).toString('hex')}`;
  const channel = `${prefix}:bus`;
  const errors: unknown[] = [];
  const otherVersions: number[] = [];
  let bus: Bus;
  let other: Redis;
  let listener: (event: BusEvent) => void = () => undefined;

  beforeAll(async () => {
    bus = await redisBus(
      REDIS_URL,
      prefix,
      (err) => errors.push(err),
      (v) => otherVersions.push(v),
    );
    bus.subscribe((event) => listener(event));
    other = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    await bus?.close();
    other?.disconnect();
  });

  /** Publishes `raws` as another instance, then a marker; resolves with what the bus handed on before it. */
  async function heard(...raws: string[]): Promise<BusEvent[]> {
    const events: BusEvent[] = [];
    const marked = new Promise<void>((resolve) => {
      listener = (event) => (event.kind === 'blocks_changed' ? resolve() : events.push(event));
    });
    for (const raw of raws) await other.publish(channel, raw);
    await other.publish(channel, JSON.stringify({ v: BUS_VERSION, kind: 'blocks_changed' }));
    await marked;
    return events;
  }

  it('delivers an event of the previous version, a message without expiresAt, clientMessageId or targetId, as never expiring and with none', async () => {
    const event = { kind: 'deliver', to: 'all', frame: { type: 'chat_message', message: previousMessage } };
    expect(await heard(JSON.stringify(event), JSON.stringify(event))).toEqual([
      { ...event, frame: { ...event.frame, message: { ...previousMessage, expiresAt: null, clientMessageId: null, targetId: null } } },
      { ...event, frame: { ...event.frame, message: { ...previousMessage, expiresAt: null, clientMessageId: null, targetId: null } } },
    ]);
    // Without a version it is version 0, told once however many of its events arrive.
    expect(otherVersions).toEqual([0]);
    expect(errors).toEqual([]);
  });

  it('delivers an event of a newer version with fields it does not know, without them', async () => {
    const frame = { type: 'chat_message', message: { ...previousMessage, expiresAt: null, reactions: ['+1'] }, priority: 'high' };
    const [event] = await heard(JSON.stringify({ v: BUS_VERSION + 1, kind: 'deliver', to: [alice], frame, traceId: 'abc' }));
    expect(event).toEqual({
      kind: 'deliver',
      to: [alice],
      frame: { type: 'chat_message', message: { ...previousMessage, expiresAt: null, clientMessageId: null, targetId: null } },
    });
    expect(otherVersions).toEqual([0, BUS_VERSION + 1]);
    expect(errors).toEqual([]);
  });

  it('carries its version on every event it publishes', async () => {
    const raw = new Redis(REDIS_URL);
    try {
      const published: unknown[] = [];
      raw.on('message', (_channel, text: string) => published.push(JSON.parse(text)));
      await raw.subscribe(channel);
      const event: BusEvent = { kind: 'deliver', to: [alice], frame: { type: 'users_changed' } };
      await bus.publish(event);
      await bus.publish({ kind: 'resync' });
      await expect.poll(() => published).toHaveLength(2);
      // With who published it and when, by which the publisher times the event's way back (bus lag).
      const envelope = { v: BUS_VERSION, from: expect.any(String) as unknown, at: expect.any(Number) as unknown };
      expect(published).toEqual([
        { ...envelope, ...event },
        { ...envelope, kind: 'resync' },
      ]);
    } finally {
      raw.disconnect();
    }
  });

  it('times its own events back from Redis (bus lag), not those of other instances', async () => {
    const ownEventBack = () =>
      new Promise<void>((resolve) => {
        listener = (event) => event.kind === 'blocks_changed' && resolve();
      });
    // An earlier test's own events may still be on their way back: once one published now has
    // returned, they all have (the channel keeps their order), and none is timed below.
    const drained = ownEventBack();
    await bus.publish({ kind: 'blocks_changed' });
    await drained;
    const lags: number[] = [];
    bus.observeLag!((seconds) => lags.push(seconds));
    // Another instance's event, even one claiming a time, is not this bus's to time.
    const theirs: BusEvent = { kind: 'deliver', to: [alice], frame: { type: 'users_changed' } };
    expect(await heard(JSON.stringify({ v: BUS_VERSION, from: 'another-instance', at: 0, ...theirs }))).toContainEqual(theirs);
    expect(lags).toEqual([]);
    const back = ownEventBack();
    await bus.publish({ kind: 'blocks_changed' });
    await back;
    expect(lags.length).toBeGreaterThan(0);
    for (const seconds of lags) expect(seconds).toBeGreaterThanOrEqual(0);
  });

  it('logs an event it cannot read with its kind and frame type, counts it, and delivers the next', async () => {
    const refusedBefore = bus.refused!();
    const errorsBefore = errors.length;
    const events = await heard(
      JSON.stringify({ v: BUS_VERSION + 1, kind: 'deliver', to: 'all', frame: { type: 'reaction', messageId: 7 } }),
      JSON.stringify({ v: BUS_VERSION + 1, kind: 'evict_cache' }),
      'not json',
      JSON.stringify({ v: BUS_VERSION, kind: 'resync' }),
    );
    expect(events).toEqual([{ kind: 'resync' }]);
    expect(bus.refused!() - refusedBefore).toBe(3);
    const refusals = errors.slice(errorsBefore);
    expect(refusals.every((e) => e instanceof BusEventRefused)).toBe(true);
    expect(refusals.map((e) => (e as Error).message)).toEqual([
      expect.stringContaining(`(kind deliver, frame reaction, from version ${BUS_VERSION + 1})`),
      expect.stringContaining(`(kind evict_cache, frame -, from version ${BUS_VERSION + 1})`),
      expect.stringContaining('(kind -, frame -, from version 0)'),
    ]);
  });
});
