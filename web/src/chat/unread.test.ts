import { describe, expect, it } from 'vitest';
import {
  countLabel,
  firstUnreadId,
  forgetUnread,
  isInView,
  keepGroups,
  markRead,
  MAX_UNREAD_IDS,
  noteUnread,
  parseReadState,
  titleWithCount,
  totalUnread,
  typingText,
  unreadCount,
  type ReadState,
} from './unread';

const dm = `dm:${'a'.repeat(8)}-aaaa-aaaa-aaaa-${'a'.repeat(12)}:${'b'.repeat(8)}-bbbb-bbbb-bbbb-${'b'.repeat(12)}`;

describe('unread counting', () => {
  it('counts others’ messages once each, per conversation and in total', () => {
    let state: ReadState = {};
    state = noteUnread(state, 'general', [5, 7]);
    state = noteUnread(state, 'general', [7, 6]);
    state = noteUnread(state, dm, [9]);
    expect(unreadCount(state, 'general')).toBe(3);
    expect(unreadCount(state, dm)).toBe(1);
    expect(unreadCount(state, 'unknown')).toBe(0);
    expect(totalUnread(state)).toBe(4);
    expect(firstUnreadId(state, 'general')).toBe(5);
  });

  it('marks read up to an id, and ignores what came before it afterwards', () => {
    let state = noteUnread({}, 'general', [5, 6, 7]);
    state = markRead(state, 'general', 6);
    expect(state.general).toEqual({ readUpTo: 6, unread: [7] });
    expect(firstUnreadId(state, 'general')).toBe(7);
    // A late frame or a catch-up page of something already read does not count again.
    expect(noteUnread(state, 'general', [4, 6])).toBe(state);
    state = markRead(state, 'general', 7);
    expect(unreadCount(state, 'general')).toBe(0);
    expect(firstUnreadId(state, 'general')).toBeNull();
  });

  it('never moves the read mark back, and returns the same state when nothing changes', () => {
    const state = markRead({}, 'general', 10);
    expect(markRead(state, 'general', 3)).toBe(state);
    expect(markRead(state, 'general', 10)).toBe(state);
    expect(noteUnread(state, 'general', [])).toBe(state);
  });

  it('records a conversation opened while empty as read from the start', () => {
    const state = markRead({}, 'general', 0);
    expect(state.general).toEqual({ readUpTo: 0, unread: [] });
    expect(unreadCount(noteUnread(state, 'general', [1]), 'general')).toBe(1);
  });

  it('keeps a bounded number of ids, the newest', () => {
    const ids = Array.from({ length: MAX_UNREAD_IDS + 10 }, (_, i) => i + 1);
    const state = noteUnread({}, 'general', ids);
    expect(unreadCount(state, 'general')).toBe(MAX_UNREAD_IDS);
    expect(firstUnreadId(state, 'general')).toBe(11);
  });
});

describe('titles and labels', () => {
  it('puts the total in front of the title, and nothing when all is read', () => {
    expect(titleWithCount('Enclave', 3)).toBe('(3) Enclave');
    expect(titleWithCount('Enclave', 0)).toBe('Enclave');
    expect(titleWithCount('Enclave', 120)).toBe('(99+) Enclave');
    expect(countLabel(7)).toBe('7');
    expect(countLabel(100)).toBe('99+');
  });

  it('names who is typing, up to two', () => {
    expect(typingText([])).toBe('');
    expect(typingText(['bob'])).toBe('bob is typing…');
    expect(typingText(['bob', 'carol'])).toBe('bob and carol are typing…');
    expect(typingText(['bob', 'carol', 'dave'])).toBe('Several members are typing…');
  });
});

describe('stored state', () => {
  it('round-trips through JSON', () => {
    const state = markRead(noteUnread({}, dm, [3, 4]), 'general', 2);
    expect(parseReadState(JSON.stringify(state))).toEqual(state);
  });

  it.each([
    ['nothing', null],
    ['not JSON', '{'],
    ['an array', '[1]'],
    ['a number', '42'],
  ])('reads %s as an empty state', (_what, text) => {
    expect(parseReadState(text)).toEqual({});
  });

  it('drops entries and ids without the right shape', () => {
    const text = JSON.stringify({
      general: { readUpTo: 2, unread: [1, 3, 'x', -1, 3.5, 4] },
      'not-a-conversation': { readUpTo: 0, unread: [1] },
      [dm]: { readUpTo: 'x', unread: [] },
    });
    expect(parseReadState(text)).toEqual({ general: { readUpTo: 2, unread: [3, 4] } });
    expect(parseReadState('{"__proto__":{"readUpTo":0,"unread":[1]}}')).toEqual({});
  });
});

describe('isInView', () => {
  it('is the open conversation with the tab visible, nothing else', () => {
    expect(isInView({ conversationId: 'general', visible: true }, 'general')).toBe(true);
    expect(isInView({ conversationId: 'general', visible: false }, 'general')).toBe(false);
    expect(isInView({ conversationId: dm, visible: true }, 'general')).toBe(false);
  });
});

describe('forgetUnread', () => {
  it('stops counting messages that were erased, and keeps the state when none was unread', () => {
    const state = noteUnread({}, 'general', [4, 5, 6]);
    const after = forgetUnread(state, 'general', [5, 9]);
    expect(after.general?.unread).toEqual([4, 6]);
    expect(forgetUnread(after, 'general', [9])).toBe(after);
    expect(forgetUnread(after, 'dm:x', [4])).toBe(after);
  });
});

describe('keepGroups', () => {
  const falcon = 'group:12345678-1234-4123-8123-123456789abc';
  const left = 'group:87654321-4321-4321-8321-cba987654321';
  it('drops the counts of groups the member no longer belongs to, and nothing else', () => {
    const state = noteUnread(noteUnread(noteUnread(noteUnread({}, 'general', [1]), dm, [2]), falcon, [3]), left, [4, 5]);
    const kept = keepGroups(state, [falcon]);
    expect(Object.keys(kept).sort()).toEqual([dm, falcon, 'general'].sort());
    expect(totalUnread(kept)).toBe(3);
    expect(keepGroups(kept, [falcon])).toBe(kept);
  });
});
