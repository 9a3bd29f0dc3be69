import type { Message } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { laterPosition, newestFrom, readMarkFor } from './read-receipts';

const self = '11111111-1111-4111-8111-111111111111';
const peer = '22222222-2222-4222-8222-222222222222';
const message = (id: number, senderId: string) => ({ id, senderId }) as Message;
const at = '2026-11-27T02:00:00.000Z';

describe('read receipts', () => {
  const messages = [message(1, self), message(2, peer), message(3, self), message(4, self), message(5, peer)];

  it("puts Read under the member's own last message at or before the peer's position", () => {
    expect(readMarkFor(messages, self, { userId: peer, messageId: 3, readAt: at })).toEqual({ messageId: 3, readAt: at });
    // The peer's own message is never marked: the member's last one before it is.
    expect(readMarkFor(messages, self, { userId: peer, messageId: 5, readAt: at })).toEqual({ messageId: 4, readAt: at });
    expect(readMarkFor(messages, self, { userId: peer, messageId: 2, readAt: at })).toEqual({ messageId: 1, readAt: at });
  });

  it('marks nothing without a position, or before the first own message', () => {
    expect(readMarkFor(messages, self, null)).toBeNull();
    expect(readMarkFor(messages, self, undefined)).toBeNull();
    expect(readMarkFor([message(2, peer), message(3, self)], self, { userId: peer, messageId: 2, readAt: at })).toBeNull();
  });

  it("reads up to the peer's newest message, none when they wrote nothing", () => {
    expect(newestFrom(messages, peer)).toBe(5);
    expect(newestFrom([message(1, self)], peer)).toBeNull();
  });

  it('never moves a position backwards when an older one is heard late', () => {
    const newer = { userId: peer, messageId: 5, readAt: at };
    const older = { userId: peer, messageId: 3, readAt: at };
    expect(laterPosition(newer, older)).toBe(newer);
    expect(laterPosition(older, newer)).toBe(newer);
    expect(laterPosition(null, older)).toBe(older);
  });
});
