import type { DecryptResult } from './message-decryptor';
import { storedMessage } from './testing';
import type { EpochShare, HistoryResponse, Message } from '@enclave/protocol';
import { describe, expect, it } from 'vitest';
import { ChatStore, type HistoryParams } from './chat-store';

/** A share's wrapped key, whichever way it opens. */
const keyOf = (s: EpochShare) => ('wrappedKey' in s ? s.wrappedKey : 'channel' in s ? s.channel.share.wrappedKey : 'awaiting');

const ME = '00000000-0000-4000-8000-000000000001';
const BOB = '00000000-0000-4000-8000-000000000002';

/** The fake server's share of the epoch of the messages: one per page, naming the page's newest message. */
function shareFor(page: readonly Message[]): EpochShare[] {
  const newest = page.at(-1);
  if (!newest) return [];
  return [
    {
      epochId: newest.epochId,
      conversationId: 'general',
      senderId: BOB,
      membershipVersion: 1,
      wrappedKey: `w${newest.id}`,
      signature: 's',
    },
  ];
}

/** A fake server holding message ids 1..n of the general channel. */
function setup(initialCount: number, pageSize = 5, olderPageSize = pageSize) {
  let stored = Array.from({ length: initialCount }, (_, i) => storedMessage(i + 1));
  const requests: HistoryParams[] = [];
  const decrypted: number[] = [];
  /** The shares each decryption was given (undefined: to be fetched). */
  const sharesGiven: (string[] | undefined)[] = [];
  const store = new ChatStore({
    selfId: ME,
    pageSize,
    olderPageSize,
    history: async (params): Promise<HistoryResponse> => {
      requests.push(params);
      const limit = params.limit ?? 50;
      if (params.after !== undefined) {
        const newer = stored.filter((m) => m.id > (params.after ?? 0));
        const page = newer.slice(0, limit);
        return { messages: page, events: [], disappearingSeconds: 0, hasMore: newer.length > limit, shares: shareFor(page) };
      }
      const older = stored.filter((m) => params.before === undefined || m.id < params.before);
      const page = older.slice(-limit);
      return { messages: page, events: [], disappearingSeconds: 0, hasMore: older.length > limit, shares: shareFor(page) };
    },
    decrypt: async (messages, shares) => {
      decrypted.push(...messages.map((m) => m.id));
      sharesGiven.push(shares?.map((s) => keyOf(s)));
      return new Map(messages.map((m): [number, DecryptResult] => [m.id, { status: 'ok', text: m.encryptedContent }]));
    },
  });
  const ids = () => store.view('general').messages.map((m) => m.id);
  const post = (id: number) => {
    // Kept in id order: a message may commit after one with a higher id.
    stored = [...stored, storedMessage(id)].sort((a, b) => a.id - b.id);
    return storedMessage(id);
  };
  return { store, requests, decrypted, sharesGiven, ids, post };
}

describe('ChatStore', () => {
  it('loads the newest page first and pages back with before', async () => {
    const t = setup(12);
    await t.store.open('general', 'all');
    expect(t.ids()).toEqual([8, 9, 10, 11, 12]);
    expect(t.store.view('general').hasOlder).toBe(true);
    await t.store.loadOlder('general');
    expect(t.requests.at(-1)).toMatchObject({ before: 8 });
    expect(t.ids()).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('pages back with the larger older page size, reading each page with the shares it came with', async () => {
    const t = setup(30, 5, 20);
    await t.store.open('general', 'all');
    await t.store.loadOlder('general');
    expect(t.requests.map((r) => r.limit)).toEqual([5, 20]);
    expect(t.ids()).toHaveLength(25);
    expect(t.sharesGiven).toEqual([['w30'], ['w25']]);
    // A live message has no history answer: its shares are fetched.
    await t.store.live(t.post(31));
    expect(t.sharesGiven.at(-1)).toBeUndefined();
  });

  it('shows a message being sent, keeps it with its text when sending fails, and lets it go once stored', async () => {
    const t = setup(0);
    await t.store.open('general', 'all');
    const outgoing = () => t.store.view('general').outgoing.map((o) => [o.localId, o.state, o.text]);
    t.store.sending('general', 'a', 'first');
    t.store.sending('general', 'b', 'second');
    expect(outgoing()).toEqual([
      ['a', 'sending', 'first'],
      ['b', 'sending', 'second'],
    ]);
    t.store.failed('general', 'a');
    expect(outgoing()).toEqual([
      ['a', 'failed', 'first'],
      ['b', 'sending', 'second'],
    ]);
    t.store.sent(storedMessage(1, { senderId: ME }), { text: 'second' }, 'b');
    expect(outgoing()).toEqual([['a', 'failed', 'first']]);
    expect(t.ids()).toEqual([1]);
    // Retry: the same message goes back to being sent, in its place.
    t.store.sending('general', 'a', 'first');
    expect(outgoing()).toEqual([['a', 'sending', 'first']]);
    t.store.failed('general', 'a');
    t.store.discard('general', 'a');
    expect(outgoing()).toEqual([]);
  });

  it('never shows the member own message twice when its frame comes before the send answer', async () => {
    const t = setup(0);
    await t.store.open('general', 'all');
    const [a, b] = ['00000000-0000-4000-a000-00000000000a', '00000000-0000-4000-a000-00000000000b'];
    // The same text twice, as a member who sends "ok" and "ok" does.
    t.store.sending('general', a, 'c1');
    t.store.sending('general', b, 'c1');
    // Someone else's message, even under the same id, does not settle it.
    await t.store.live(storedMessage(1, { encryptedContent: 'c1', clientMessageId: a }));
    expect(t.store.view('general').outgoing).toHaveLength(2);
    // The frame of the second send settles the second, by its id, not the first by its text.
    await t.store.live(storedMessage(2, { senderId: ME, encryptedContent: 'c1', clientMessageId: b }));
    expect(t.store.view('general').outgoing.map((o) => o.localId)).toEqual([a]);
    t.store.sent(storedMessage(2, { senderId: ME, clientMessageId: b }), { text: 'c1' }, b);
    expect(t.ids()).toEqual([1, 2]);
    expect(t.store.view('general').outgoing.map((o) => o.localId)).toEqual([a]);
  });

  it('holds a message once when it comes both as a frame and in a page', async () => {
    const t = setup(3);
    await t.store.open('general', 'all');
    t.store.authenticated('general');
    const m4 = t.post(4);
    await t.store.live(m4);
    await t.store.open('general', 'all');
    await t.store.live(m4);
    expect(t.ids()).toEqual([1, 2, 3, 4]);
    expect(t.decrypted.filter((id) => id === 4)).toHaveLength(1);
  });

  it('catches up with after=<last id> on reauthentication, with no gap', async () => {
    const t = setup(3);
    await t.store.authenticated('general');
    await t.store.open('general', 'all');
    // Disconnected: 4..13 are posted and never reach this client as frames.
    for (let id = 4; id <= 13; id++) t.post(id);
    // On reconnect a frame for 14 arrives before the catch-up request has answered.
    const m14 = t.post(14);
    const catchUp = t.store.authenticated('general');
    await t.store.live(m14);
    await catchUp;
    expect(t.requests.filter((r) => r.after !== undefined).map((r) => r.after)).toEqual([3, 8, 13]);
    expect(t.ids()).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
  });

  it('does not let a frame received while out of sync move the cursor past missed messages', async () => {
    const t = setup(2);
    await t.store.open('general', 'all');
    t.post(3);
    const m4 = t.post(4);
    // The open conversation was loaded in an older session: a frame must not skip 3.
    await t.store.authenticated(null);
    await t.store.live(m4);
    await t.store.open('general', 'all');
    expect(t.requests.at(-1)).toMatchObject({ after: 2 });
    expect(t.ids()).toEqual([1, 2, 3, 4]);
  });

  it('does not move the cursor with frames: the next catch-up asks from the last HTTP answer', async () => {
    const t = setup(2);
    await t.store.authenticated(null);
    await t.store.open('general', 'all');
    await t.store.live(t.post(3));
    await t.store.authenticated('general');
    expect(t.requests.at(-1)).toMatchObject({ after: 2 });
    expect(t.ids()).toEqual([1, 2, 3]);
    expect(t.decrypted.filter((id) => id === 3)).toHaveLength(1);
  });

  it('does not lose a message committed after a frame with a higher id (frame 102, drop, 101, catch-up)', async () => {
    const t = setup(100);
    await t.store.authenticated(null);
    await t.store.open('general', 'all');
    // 101 and 102 were assigned; 102 committed first (another server instance) and its frame arrived.
    await t.store.live(t.post(102));
    // The socket drops before 101's frame; meanwhile 101 commits.
    t.post(101);
    await t.store.authenticated('general');
    expect(t.requests.at(-1)).toMatchObject({ after: 100 });
    expect(t.ids()).toEqual([96, 97, 98, 99, 100, 101, 102]);
    expect(t.decrypted.filter((id) => id === 102)).toHaveLength(1);
  });

  it('ignores frames of conversations never opened', async () => {
    const t = setup(0);
    expect(await t.store.live(storedMessage(1, { conversationId: 'dm:a:b' }))).toBeUndefined();
    expect(t.store.view('dm:a:b').messages).toHaveLength(0);
  });

  it('answers a frame with what decrypting it gave', async () => {
    const t = setup(0);
    await t.store.open('general', 'all');
    expect(await t.store.live(t.post(1))).toEqual({ status: 'ok', text: 'c1' });
  });

  it('keeps the typed text of the member own messages', async () => {
    const t = setup(0);
    await t.store.open('general', 'all');
    t.store.sent(storedMessage(1), { text: 'hello' });
    expect(t.store.view('general').results.get(1)).toEqual({ status: 'ok', text: 'hello' });
    expect(t.decrypted).not.toContain(1);
  });

  it('returns the same snapshot while nothing changes', async () => {
    const t = setup(2);
    await t.store.open('general', 'all');
    expect(t.store.view('general')).toBe(t.store.view('general'));
  });

  it('shows a page of older messages once, decrypted, with the button back', async () => {
    const t = setup(12);
    await t.store.open('general', 'all');
    const views: ReturnType<ChatStore['view']>[] = [];
    t.store.subscribe(() => views.push(t.store.view('general')));
    await t.store.loadOlder('general');
    // One view says it is loading, the next holds the page with its texts.
    expect(views.map((v) => [v.messages.length, v.results.size, v.loadingOlder])).toEqual([
      [5, 5, true],
      [10, 10, false],
    ]);
  });

  it('keeps the message list when only a result changes, and the other results as the same objects, so their rows are not drawn again', async () => {
    const t = setup(3);
    await t.store.open('general', 'all');
    const before = t.store.view('general');
    // The server's copy of the member's own message, already held (its frame came first).
    t.store.sent(storedMessage(3), { text: 'hello' });
    const after = t.store.view('general');
    expect(after.results.get(3)).toEqual({ status: 'ok', text: 'hello' });
    expect(after.messages).toBe(before.messages);
    expect(after.results.get(1)).toBe(before.results.get(1));
  });

  it('copies nothing for a view that only changes its status', async () => {
    const t = setup(12);
    await t.store.open('general', 'all');
    const before = t.store.view('general');
    const views: ReturnType<ChatStore['view']>[] = [];
    t.store.subscribe(() => views.push(t.store.view('general')));
    await t.store.loadOlder('general');
    expect(views[0]?.messages).toBe(before.messages);
    expect(views[0]?.results).toBe(before.results);
  });
});
