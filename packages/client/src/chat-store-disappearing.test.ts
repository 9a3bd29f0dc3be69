/** ChatStore and disappearing messages: expiry by this browser's clock, erased messages, timeline events. */
import type { DecryptResult } from './message-decryptor';
import { storedMessage } from './testing';
import type { HistoryResponse, TimelineEvent } from '@enclave/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatStore, type HistoryParams } from './chat-store';

const BOB = '00000000-0000-4000-8000-000000000002';
const NOW = Date.parse('2026-01-01T12:00:00.000Z');

/** Bob's message, sent at NOW and disappearing `expiresInMs` later (null: never). */
const msg = (id: number, expiresInMs: number | null = null) =>
  storedMessage(id, {
    timestamp: new Date(NOW).toISOString(),
    expiresAt: expiresInMs === null ? null : new Date(NOW + expiresInMs).toISOString(),
  });

const timerEvent = (id: number, seconds: 0 | 3600): TimelineEvent => ({
  id,
  conversationId: 'general',
  actorId: BOB,
  timestamp: new Date(NOW).toISOString(),
  event: { kind: 'timer_set', seconds },
});

type Page = Omit<HistoryResponse, 'hasMore' | 'shares'>;

function setup(page: Page) {
  const requests: HistoryParams[] = [];
  let answer = page;
  const store = new ChatStore({
    selfId: '00000000-0000-4000-8000-000000000001',
    history: async (params) => {
      requests.push(params);
      const current = answer;
      answer = { messages: [], events: [], disappearingSeconds: current.disappearingSeconds };
      return { ...current, hasMore: false, shares: [] };
    },
    decrypt: async (messages) => new Map(messages.map((m): [number, DecryptResult] => [m.id, { status: 'ok', text: `secret ${m.id}` }])),
  });
  const view = () => store.view('general');
  return { store, requests, view, next: (p: Page) => (answer = p) };
}

describe('ChatStore: disappearing messages', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('drops a message and its text at its expiry by this browser clock', async () => {
    const t = setup({ messages: [msg(1), msg(2, 60_000)], events: [], disappearingSeconds: 3600 });
    await t.store.open('general', 'all');
    expect(t.view().messages.map((m) => m.id)).toEqual([1, 2]);
    expect(t.view().results.get(2)).toEqual({ status: 'ok', text: 'secret 2' });
    await vi.advanceTimersByTimeAsync(59_999);
    expect(t.view().messages.map((m) => m.id)).toEqual([1, 2]);
    await vi.advanceTimersByTimeAsync(1);
    expect(t.view().messages.map((m) => m.id)).toEqual([1]);
    expect(t.view().results.has(2)).toBe(false);
  });

  it('does not take a message that has already expired', async () => {
    const t = setup({ messages: [msg(1, -1)], events: [], disappearingSeconds: 3600 });
    await t.store.open('general', 'all');
    await t.store.live(msg(2, -5));
    expect(t.view().messages).toEqual([]);
  });

  it('drops an erased message; a deleted one leaves a note that keeps it out of later pages', async () => {
    const t = setup({ messages: [msg(1), msg(2), msg(3)], events: [], disappearingSeconds: 0 });
    await t.store.open('general', 'all');
    t.store.removed('general', [1, 99], 'expired');
    t.store.removed('general', [2], 'deleted');
    expect(t.view().messages.map((m) => m.id)).toEqual([3]);
    expect([...t.view().results.keys()]).toEqual([3]);
    expect(t.view().events).toMatchObject([{ id: 2, actorId: BOB, event: { kind: 'message_deleted' } }]);
    // A frame of the deleted message arriving late does not bring it back.
    await t.store.live(msg(2));
    expect(t.view().messages.map((m) => m.id)).toEqual([3]);
  });

  it('places timer changes in the timeline, takes the timer from them, and moves the cursor over them', async () => {
    const t = setup({ messages: [msg(1)], events: [timerEvent(2, 3600)], disappearingSeconds: 3600 });
    await t.store.open('general', 'all');
    expect(t.view().disappearingSeconds).toBe(3600);
    t.store.event(timerEvent(3, 0));
    expect(t.view().disappearingSeconds).toBe(0);
    expect(t.view().events.map((e) => e.id)).toEqual([2, 3]);
    // Frames do not move the cursor: the catch-up asks from the last id an answer held, an event's.
    t.next({ messages: [], events: [timerEvent(3, 0)], disappearingSeconds: 0 });
    await t.store.authenticated('general');
    expect(t.requests.at(-1)).toMatchObject({ after: 2 });
    await t.store.authenticated('general');
    expect(t.requests.at(-1)).toMatchObject({ after: 3 });
  });

  it('keeps a timer change that came as a frame while an answer made before it was on its way', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const store = new ChatStore({
      selfId: '00000000-0000-4000-8000-000000000001',
      history: async () => {
        await held;
        return { messages: [msg(1)], events: [], disappearingSeconds: 0, hasMore: false, shares: [] };
      },
      decrypt: async (messages) => new Map(messages.map((m): [number, DecryptResult] => [m.id, { status: 'ok', text: '' }])),
    });
    const opening = store.open('general', 'all');
    store.event(timerEvent(2, 3600));
    release();
    await opening;
    expect(store.view('general').disappearingSeconds).toBe(3600);
    expect(store.view('general').events.map((e) => e.id)).toEqual([2]);
  });

  it('takes the timer of each later answer that holds a newer change', async () => {
    const t = setup({ messages: [msg(5)], events: [timerEvent(4, 3600)], disappearingSeconds: 3600 });
    await t.store.open('general', 'all');
    t.store.event(timerEvent(6, 0));
    t.next({ messages: [msg(7)], events: [timerEvent(6, 0)], disappearingSeconds: 0 });
    await t.store.authenticated('general');
    expect(t.view().disappearingSeconds).toBe(0);
    t.next({ messages: [], events: [timerEvent(8, 3600)], disappearingSeconds: 3600 });
    await t.store.authenticated('general');
    expect(t.view().disappearingSeconds).toBe(3600);
  });
});
