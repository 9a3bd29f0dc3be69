import { describe, expect, it } from 'vitest';
import { eventText, TIMER_CHOICES, timerName } from './disappearing';

describe('disappearing-message words', () => {
  it('names every timer the server accepts, off first', () => {
    expect(TIMER_CHOICES.map((c) => c.name)).toEqual(['Off', '1 hour', '1 day', '1 week']);
    expect(timerName(86_400)).toBe('1 day');
  });

  it('announces a timer change with its author, and a deletion without the text', () => {
    expect(eventText({ kind: 'timer_set', seconds: 3600 }, 'alice', false)).toBe('alice set disappearing messages to 1 hour');
    expect(eventText({ kind: 'timer_set', seconds: 0 }, 'You', true)).toBe('You turned off disappearing messages');
    expect(eventText({ kind: 'message_deleted' }, 'bob', false)).toBe('This message was deleted');
    expect(eventText({ kind: 'message_deleted' }, 'You', true)).toBe('You deleted this message');
  });
});
