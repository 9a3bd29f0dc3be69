/**
 * Reactions and edits as the chat store folds them into their targets: never rows, applied when
 * the target comes after them, gone with their target or when deleted, an edit only from the
 * target's sender, the latest edit winning, one reaction per emoji per member.
 */
import type { Annotation, HistoryResponse, Message } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore } from './chat-store';
import type { DecryptResult } from './message-decryptor';
import { storedMessage } from './testing';

const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';
const CAROL = '00000000-0000-4000-8000-000000000003';

/** A message whose "ciphertext" is its content as JSON (the fake decryption reads it back). */
const text = (id: number, senderId: string, body: string, replyTo?: number) =>
  storedMessage(id, { senderId, encryptedContent: JSON.stringify(replyTo ? { text: body, replyTo } : { text: body }) });
const annotation = (id: number, senderId: string, targetId: number, a: Annotation) =>
  storedMessage(id, { senderId, targetId, encryptedContent: JSON.stringify({ text: '', annotation: a }) });
const thumbs = { kind: 'reaction', emoji: '👍' } as const;

/** A store over a fake server holding `history` (the newest page first: ids above `olderThan`). */
function setup(history: Message[], olderThan = 0) {
  const store = new ChatStore({
    selfId: ME,
    pageSize: 50,
    history: async (params): Promise<HistoryResponse> => {
      const page = history.filter((m) => (params.before === undefined ? m.id > olderThan : m.id < params.before));
      return { messages: page, events: [], disappearingSeconds: 0, hasMore: params.before === undefined && olderThan > 0, shares: [] };
    },
    decrypt: async (messages) =>
      new Map(messages.map((m): [number, DecryptResult] => [m.id, { status: 'ok', ...JSON.parse(m.encryptedContent) }])),
  });
  const view = () => store.view('general');
  const reactions = (id: number) =>
    view()
      .annotations.get(id)
      ?.reactions.map((r) => [r.emoji, [...r.by.keys()]]);
  return { store, view, reactions, open: () => store.open('general', 'all') };
}

describe('annotations in the chat store', () => {
  it('folds reactions and edits into their target, and never shows them as rows', async () => {
    const { view, reactions, open } = setup([
      text(1, BOB, 'hello'),
      annotation(2, ME, 1, thumbs),
      annotation(3, CAROL, 1, thumbs),
      annotation(4, CAROL, 1, { kind: 'reaction', emoji: '❤️' }),
      annotation(5, BOB, 1, { kind: 'edit', text: 'hello there' }),
    ]);
    await open();
    expect(view().messages.map((m) => m.id)).toEqual([1]);
    expect(reactions(1)).toEqual([
      ['👍', [ME, CAROL]],
      ['❤️', [CAROL]],
    ]);
    expect(view().annotations.get(1)?.edit).toEqual({ text: 'hello there', id: 5 });
  });

  it('keeps an annotation whose target is not loaded, and applies it when an older page brings the target', async () => {
    const { store, view, reactions, open } = setup([text(1, BOB, 'old'), text(2, BOB, 'newer'), annotation(3, ME, 1, thumbs)], 1);
    await open();
    expect(view().messages.map((m) => m.id)).toEqual([2]);
    expect(view().annotations.get(1)).toBeUndefined();
    await store.loadOlder('general');
    expect(view().messages.map((m) => m.id)).toEqual([1, 2]);
    expect(reactions(1)).toEqual([['👍', [ME]]]);
  });

  it('applies a live annotation that arrives before its target', async () => {
    const { store, view, reactions, open } = setup([]);
    await open();
    await store.live(annotation(8, CAROL, 7, thumbs));
    expect(view().messages).toEqual([]);
    await store.live(text(7, BOB, 'late'));
    expect(reactions(7)).toEqual([['👍', [CAROL]]]);
  });

  it('drops a deleted reaction, and a deleted target with its annotations, leaving no note for an annotation', async () => {
    const { store, view, reactions, open } = setup([
      text(1, BOB, 'a'),
      annotation(2, ME, 1, thumbs),
      annotation(3, CAROL, 1, thumbs),
      annotation(4, BOB, 1, { kind: 'edit', text: 'b' }),
    ]);
    await open();
    store.removed('general', [2], 'deleted');
    expect(reactions(1)).toEqual([['👍', [CAROL]]]);
    expect(view().events).toEqual([]);
    // The server names the target and its annotations in one frame.
    store.removed('general', [1, 3, 4], 'deleted');
    expect(view().messages).toEqual([]);
    expect(view().annotations.size).toBe(0);
    expect(view().events.map((e) => e.id)).toEqual([1]);
  });

  it("ignores an edit by anyone but the target's sender, and takes the latest edit", async () => {
    const { view, open } = setup([
      text(1, BOB, 'original'),
      annotation(2, BOB, 1, { kind: 'edit', text: 'first edit' }),
      annotation(3, CAROL, 1, { kind: 'edit', text: 'forged' }),
      annotation(4, BOB, 1, { kind: 'edit', text: 'second edit' }),
      annotation(5, CAROL, 1, { kind: 'edit', text: 'forged again' }),
    ]);
    await open();
    expect(view().annotations.get(1)).toMatchObject({ edit: { text: 'second edit', id: 4 }, editIds: [2, 4] });
  });

  it('counts a repeated reaction once, and ignores what did not open as an annotation or annotates one', async () => {
    const { view, reactions, open } = setup([
      text(1, BOB, 'a'),
      annotation(2, CAROL, 1, thumbs),
      annotation(3, CAROL, 1, thumbs),
      // A targetId on a plain text, and a reaction to a reaction: neither counts, neither is a row.
      storedMessage(4, { senderId: CAROL, targetId: 1, encryptedContent: JSON.stringify({ text: 'sneaky' }) }),
      annotation(5, ME, 2, thumbs),
    ]);
    await open();
    expect(view().messages.map((m) => m.id)).toEqual([1]);
    const byCarol = view().annotations.get(1)?.reactions[0]?.by.get(CAROL);
    expect([reactions(1), byCarol]).toEqual([[['👍', [CAROL]]], [2, 3]]);
    expect(view().annotations.get(2)).toBeUndefined();
  });

  it('keeps a reply as a row with the id it quotes', async () => {
    const { view, open } = setup([text(1, BOB, 'question'), text(2, ME, 'answer', 1)]);
    await open();
    expect(view().messages.map((m) => m.id)).toEqual([1, 2]);
    expect(view().results.get(2)).toMatchObject({ status: 'ok', text: 'answer', replyTo: 1 });
  });
});
