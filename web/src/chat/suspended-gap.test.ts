import type { DecryptResult } from '@enclave/client';
import { storedMessage } from '@enclave/client/testing';
import type { TimelineEvent } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { sentWhileSuspended, suspendedText, timelineRows } from './suspended-gap';

const SELF = '00000000-0000-4000-8000-00000000000a';
const JOINED = '2026-01-01T10:00:00.000Z';
const ok: DecryptResult = { status: 'ok', text: 'hi' };
const noShare: DecryptResult = { status: 'unreadable', retryable: false, noShare: true };

/** Message `id` at minute `minute` of 2026-01-01 11:00 (after joining) unless `at` says otherwise. */
function at(id: number, at = `2026-01-01T11:${String(id).padStart(2, '0')}:00.000Z`) {
  return storedMessage(id, { timestamp: at });
}

function event(id: number): TimelineEvent {
  return {
    id,
    conversationId: 'general',
    actorId: SELF,
    timestamp: '2026-01-01T11:00:00.000Z',
    event: { kind: 'timer_set', seconds: 3600 },
  };
}

function shape(rows: ReturnType<typeof timelineRows>) {
  return rows.map((r) => (r.kind === 'message' ? r.message.id : r.kind === 'event' ? `e${r.event.id}` : r.messages.map((m) => m.id)));
}

describe('suspendedText', () => {
  it('counts the messages, singular for one', () => {
    expect(suspendedText(1)).toBe('1 message sent while your account was suspended');
    expect(suspendedText(3)).toBe('3 messages sent while your account was suspended');
  });
});

describe('sentWhileSuspended', () => {
  it('is a message without a share of its epoch, from someone else, sent after the member joined', () => {
    expect(sentWhileSuspended(at(1), noShare, SELF, JOINED)).toBe(true);
  });

  it('is not a message sent before the member joined (the "before you joined" banner explains those)', () => {
    expect(sentWhileSuspended(at(1, '2026-01-01T09:59:59.000Z'), noShare, SELF, JOINED)).toBe(false);
  });

  it('is not a message that failed otherwise, is readable, is still decrypting, or is the member’s own', () => {
    expect(sentWhileSuspended(at(1), { status: 'unreadable', retryable: false }, SELF, JOINED)).toBe(false);
    expect(sentWhileSuspended(at(1), { status: 'unreadable', retryable: true }, SELF, JOINED)).toBe(false);
    expect(sentWhileSuspended(at(1), { status: 'bad_signature' }, SELF, JOINED)).toBe(false);
    expect(sentWhileSuspended(at(1), ok, SELF, JOINED)).toBe(false);
    expect(sentWhileSuspended(at(1), undefined, SELF, JOINED)).toBe(false);
    expect(sentWhileSuspended(storedMessage(1, { senderId: SELF, timestamp: '2026-01-01T11:00:00.000Z' }), noShare, SELF, JOINED)).toBe(
      false,
    );
  });

  it('is nothing while the member’s join date is unknown', () => {
    expect(sentWhileSuspended(at(1), noShare, SELF, null)).toBe(false);
  });
});

describe('timelineRows', () => {
  it('folds a run of messages sent while suspended into one row between readable ones', () => {
    const messages = [at(1), at(2), at(3), at(4), at(5)];
    const results = new Map<number, DecryptResult>([
      [1, ok],
      [2, noShare],
      [3, noShare],
      [4, noShare],
      [5, ok],
    ]);
    const rows = timelineRows(messages, [], results, SELF, JOINED);
    expect(shape(rows)).toEqual([1, [2, 3, 4], 5]);
  });

  it('keeps messages and events in one id order, an event splitting a run', () => {
    const messages = [at(4), at(1), at(2)];
    const results = new Map<number, DecryptResult>([
      [1, noShare],
      [2, noShare],
      [4, noShare],
    ]);
    expect(shape(timelineRows(messages, [event(3)], results, SELF, JOINED))).toEqual([[1, 2], 'e3', [4]]);
  });

  it('leaves messages from before the member joined as rows of their own', () => {
    const messages = [at(1, '2025-12-31T00:00:00.000Z'), at(2, '2025-12-31T00:01:00.000Z'), at(3)];
    const results = new Map<number, DecryptResult>([
      [1, noShare],
      [2, noShare],
      [3, noShare],
    ]);
    expect(shape(timelineRows(messages, [], results, SELF, JOINED))).toEqual([1, 2, [3]]);
  });

  it('changes nothing when every message is readable', () => {
    const messages = [at(1), at(2)];
    const results = new Map<number, DecryptResult>([
      [1, ok],
      [2, ok],
    ]);
    expect(shape(timelineRows(messages, [event(3)], results, SELF, JOINED))).toEqual([1, 2, 'e3']);
  });
});
