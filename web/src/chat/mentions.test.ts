import { describe, expect, it } from 'vitest';
import { completionsFor, insertMention, mentionQueryAt, mentions, mentionSpans } from './mentions';

describe('mentionQueryAt', () => {
  it('finds the @letters typed just before the caret', () => {
    expect(mentionQueryAt('@al', 3)).toEqual({ start: 0, query: 'al' });
    expect(mentionQueryAt('hi @bo', 6)).toEqual({ start: 3, query: 'bo' });
    expect(mentionQueryAt('hi @bo and', 6)).toEqual({ start: 3, query: 'bo' });
  });

  it('needs a letter after the @, and an @ that starts a word', () => {
    expect(mentionQueryAt('@', 1)).toBeNull();
    expect(mentionQueryAt('mail bob@ex', 11)).toBeNull();
    expect(mentionQueryAt('@bob done', 9)).toBeNull();
    expect(mentionQueryAt('@@bo', 4)).toBeNull();
  });
});

describe('completionsFor', () => {
  const names = ['alice', 'Albert', 'bob', 'malik', 'carol'];

  it('lists names starting with the query first, then containing it, case-insensitive', () => {
    expect(completionsFor(names, 'AL')).toEqual(['Albert', 'alice', 'malik']);
    expect(completionsFor(names, 'bo')).toEqual(['bob']);
    expect(completionsFor(names, 'zz')).toEqual([]);
  });

  it('lists at most the given number', () => {
    expect(completionsFor(names, 'a', 2)).toHaveLength(2);
  });
});

describe('insertMention', () => {
  it('replaces the @query with @username and a space, the caret after it', () => {
    expect(insertMention('hi @al', 6, { start: 3, query: 'al' }, 'alice')).toEqual({ text: 'hi @alice ', caret: 10 });
  });

  it('keeps what follows, without doubling a space', () => {
    expect(insertMention('@al look', 3, { start: 0, query: 'al' }, 'alice')).toEqual({ text: '@alice look', caret: 7 });
  });
});

describe('mentions', () => {
  it('matches @username as a whole word, case-insensitive', () => {
    expect(mentions('@A look', 'a')).toBe(true);
    expect(mentions('hey @Alice, look', 'alice')).toBe(true);
    expect(mentions('(@alice)', 'alice')).toBe(true);
    expect(mentions('see you @alice.', 'alice')).toBe(true);
    expect(mentions('@alice-', 'alice')).toBe(true);
  });

  it('does not match a longer name, an address, or the name without @', () => {
    expect(mentions('@alicex look', 'alice')).toBe(false);
    expect(mentions('@alice.b look', 'alice')).toBe(false);
    expect(mentions('@alice_2', 'alice')).toBe(false);
    expect(mentions('bob@alice', 'alice')).toBe(false);
    expect(mentions('alice look', 'alice')).toBe(false);
    expect(mentions('@@alice', 'alice')).toBe(false);
  });

  it('matches names with dots and dashes in full', () => {
    expect(mentions('hi @j.doe-2 there', 'j.doe-2')).toBe(true);
    expect(mentions('hi @j.doe there', 'j.doe-2')).toBe(false);
  });
});

describe('mentionSpans', () => {
  it('gives where each mention stands, for highlighting', () => {
    expect(mentionSpans('@a and @b.')).toEqual([
      { start: 0, end: 2, name: 'a' },
      { start: 7, end: 9, name: 'b' },
    ]);
  });
});
