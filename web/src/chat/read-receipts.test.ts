import type { Message } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { newestFromOthers, readMarkFor, readMarkText, withPosition } from './read-receipts';

const self = '11111111-1111-4111-8111-111111111111';
const peer = '22222222-2222-4222-8222-222222222222';
const third = '33333333-3333-4333-8333-333333333333';
const message = (id: number, senderId: string) => ({ id, senderId }) as Message;
const at = '2026-11-27T02:00:00.000Z';
const later = '2026-11-27T03:00:00.000Z';

describe('read receipts', () => {
  const messages = [message(1, self), message(2, peer), message(3, self), message(4, self), message(5, peer)];
  const position = (messageId: number, userId = peer, readAt = at) => ({ userId, messageId, readAt });

  it("puts Read under the member's own last message at or before the peer's position", () => {
    expect(readMarkFor(messages, self, [position(3)])).toEqual({ messageId: 3, readAt: at, by: [peer] });
    // The peer's own message is never marked: the member's last one before it is.
    expect(readMarkFor(messages, self, [position(5)])).toEqual({ messageId: 4, readAt: at, by: [peer] });
    expect(readMarkFor(messages, self, [position(2)])).toEqual({ messageId: 1, readAt: at, by: [peer] });
  });

  it('in a group, marks the last own message anyone reached, with those who reached it and the latest time', () => {
    const group = [...messages, message(6, third)];
    expect(readMarkFor(group, self, [position(2), position(6, third, later)])).toEqual({ messageId: 4, readAt: later, by: [third] });
    expect(readMarkFor(group, self, [position(5), position(6, third, later)])).toEqual({ messageId: 4, readAt: later, by: [peer, third] });
  });

  it('marks nothing without a position, or before the first own message', () => {
    expect(readMarkFor(messages, self, [])).toBeNull();
    expect(readMarkFor([message(2, peer), message(3, self)], self, [position(2)])).toBeNull();
  });

  it("reads up to the others' newest message, none when only the member wrote", () => {
    expect(newestFromOthers(messages, self)).toBe(5);
    expect(newestFromOthers([message(1, self)], self)).toBeNull();
  });

  it("never moves a member's position backwards when an older one is heard late", () => {
    const newer = position(5);
    const older = position(3);
    expect(withPosition([newer], older)).toEqual([newer]);
    expect(withPosition([older], newer)).toEqual([newer]);
    expect(withPosition(undefined, older)).toEqual([older]);
    expect(withPosition([position(4, third)], older)).toEqual([position(4, third), older]);
  });

  it('says Read in a DM and who read it in a group', () => {
    expect(readMarkText(null)).toBe('Read');
    expect(readMarkText(['bob', 'carol'])).toBe('Read by bob, carol');
    expect(readMarkText(['bob', 'carol', 'dave', 'erin', 'frank'])).toBe('Read by bob, carol, dave and 2 more');
  });
});
