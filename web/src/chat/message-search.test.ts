import type { DecryptResult } from '@enclave/client';
import { storedMessage } from '@enclave/client/testing';
import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_HITS, searchMessages } from './message-search';

function held(texts: (string | DecryptResult)[]) {
  const messages = texts.map((_, i) => storedMessage(i + 1));
  const results = new Map(texts.map((t, i): [number, DecryptResult] => [i + 1, typeof t === 'string' ? { status: 'ok', text: t } : t]));
  return { messages, results };
}

const ids = (found: ReturnType<typeof searchMessages>) => found.hits.map((h) => h.message.id);

describe('searchMessages', () => {
  it('finds text regardless of case, newest first', () => {
    const { messages, results } = held(['Lunch at noon?', 'no', 'LUNCH moved', 'see you']);
    const found = searchMessages(messages, results, 'lunch');
    expect(ids(found)).toEqual([3, 1]);
    expect(found.total).toBe(2);
    expect(found.hits[0]?.text).toBe('LUNCH moved');
  });

  it('finds an edited message by its new text, not by the text edited away', () => {
    const { messages, results } = held(['meet at the old gate', 'ok']);
    const annotations = new Map([[1, { reactions: [], editIds: [3], edit: { text: 'meet at the north gate', id: 3 } }]]);
    expect(ids(searchMessages(messages, results, 'north', annotations))).toEqual([1]);
    expect(searchMessages(messages, results, 'north', annotations).hits[0]?.text).toBe('meet at the north gate');
    expect(ids(searchMessages(messages, results, 'old gate', annotations))).toEqual([]);
  });

  it('matches composed and decomposed accents, and compatibility forms', () => {
    const { messages, results } = held(['Caf\u00e9 tonight', 'Cafe\u0301 tomorrow', 'ﬁle sent', 'ＡＢＣ']);
    expect(ids(searchMessages(messages, results, 'CAF\u00c9'))).toEqual([2, 1]);
    expect(ids(searchMessages(messages, results, 'cafe\u0301'))).toEqual([2, 1]);
    expect(ids(searchMessages(messages, results, 'file'))).toEqual([3]);
    expect(ids(searchMessages(messages, results, 'abc'))).toEqual([4]);
  });

  it('never finds messages that did not decrypt to verified text', () => {
    const { messages, results } = held([
      { status: 'bad_signature' },
      { status: 'unreadable', retryable: false },
      { status: 'unverified' },
      'Encrypted Message here',
    ]);
    expect(ids(searchMessages(messages, results, 'encrypted'))).toEqual([4]);
    // A message still being decrypted has no result yet.
    expect(ids(searchMessages([...messages, storedMessage(9)], results, 'encrypted'))).toEqual([4]);
  });

  it('finds nothing for a blank query', () => {
    const { messages, results } = held(['anything']);
    expect(searchMessages(messages, results, '   ')).toEqual({ hits: [], total: 0 });
  });

  it('lists at most the newest MAX_SEARCH_HITS and counts them all', () => {
    const { messages, results } = held(Array.from({ length: MAX_SEARCH_HITS + 7 }, (_, i) => `ping ${i}`));
    const found = searchMessages(messages, results, 'PING');
    expect(found.total).toBe(MAX_SEARCH_HITS + 7);
    expect(found.hits).toHaveLength(MAX_SEARCH_HITS);
    expect(found.hits[0]?.message.id).toBe(MAX_SEARCH_HITS + 7);
  });
});
