/**
 * The web app's own member client (@enclave/client MemberClient) run by two members against a real
 * server: the chat store's optimistic sends, its catch-up after a reconnect and its dedupe, as the
 * browser runs them, with the test member only its Node transport.
 */
import { conversationIdFor, routes, type RouteDefinition, type RouteInput } from '@enclave/protocol';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { backends, relaxedRateLimits } from '../testing/harness';
import { NetworkFailure, type TestMember, type TestSocket } from '../testing/member';
import { oneInstance } from '../testing/one-instance';

/** What a member's chat shows in a conversation: each stored message's text, oldest first, and what is still being sent. */
function screen(member: TestMember, receiverId: string) {
  const view = member.client.store.view(conversationIdFor(member.id, receiverId));
  return {
    texts: view.messages.map((m) => {
      const result = view.results.get(m.id);
      return result?.status === 'ok' ? result.text : result?.status;
    }),
    ids: view.messages.map((m) => m.clientMessageId),
    outgoing: view.outgoing.map((o) => [o.text, o.state]),
  };
}

describe.each(backends)('two member clients over a real server (%s)', (backend) => {
  const suite = oneInstance(backend, { config: { rateLimits: relaxedRateLimits } });
  let alice: TestMember;
  let bob: TestMember;
  let bobSocket: TestSocket;

  beforeAll(async () => {
    [alice, bob] = await suite.members('alice', 'bob');
    [, bobSocket] = await Promise.all([alice.connect(), bob.connect()]);
    await Promise.all([alice.client.open('all'), bob.client.open('all')]);
  });

  it('shows a send as being sent, then as its stored copy matched by client message id: two sends of one text stay two', async () => {
    const first = alice.client.send('all', { text: 'same words' });
    const second = alice.client.send('all', { text: 'same words' });
    expect(screen(alice, 'all').outgoing).toEqual([
      ['same words', 'sending'],
      ['same words', 'sending'],
    ]);
    const stored = await Promise.all([first, second]);
    expect(stored[0].clientMessageId).not.toBe(stored[1].clientMessageId);
    // Sent at once, they are stored in either order; the screen follows the server's order.
    const inIdOrder = [...stored].sort((a, b) => a.id - b.id).map((m) => m.clientMessageId);
    expect(screen(alice, 'all')).toEqual({ texts: ['same words', 'same words'], ids: inIdOrder, outgoing: [] });
    // Bob's client hears both frames and reads both, once each.
    await vi.waitFor(() => expect(screen(bob, 'all').texts).toEqual(['same words', 'same words']));
  });

  it('holds a message once when its answer was lost and the very same request was sent again', async () => {
    const attempt = alice.attempt.bind(alice);
    let lost = 0;
    // The server stores the first post; its answer never reaches Alice, so her client posts it again.
    vi.spyOn(alice, 'attempt').mockImplementation(async <R extends RouteDefinition>(route: R, input: RouteInput<R>) => {
      const outcome = await attempt(route, input);
      if ((route as RouteDefinition) === routes.sendMessage && lost++ === 0)
        throw new NetworkFailure('POST', route.path, new Error('answer lost'));
      return outcome;
    });
    try {
      const message = await alice.client.send('all', { text: 'said once' });
      expect(lost).toBe(2);
      const history = await alice.history('all');
      expect(history.filter((m) => m.clientMessageId === message.clientMessageId)).toHaveLength(1);
    } finally {
      vi.restoreAllMocks();
    }
    expect(screen(alice, 'all').texts.filter((t) => t === 'said once')).toHaveLength(1);
    expect(screen(alice, 'all').outgoing).toEqual([]);
    await vi.waitFor(() => expect(screen(bob, 'all').texts.at(-1)).toBe('said once'));
    expect(screen(bob, 'all').texts.filter((t) => t === 'said once')).toHaveLength(1);
  });

  it('catches up after a reconnect: what was sent while the socket was away arrives once and in order', async () => {
    const before = screen(bob, 'all').texts;
    // Bob's socket goes: a frame can no longer reach his client.
    bobSocket.close();
    await bobSocket.closed;
    await alice.send('all', 'while away 1');
    await alice.send('all', 'while away 2');
    expect(screen(bob, 'all').texts).toEqual(before);

    // The new socket's `authenticated` makes the open conversation catch up from its cursor.
    bobSocket = await bob.connect();
    await vi.waitFor(() => expect(screen(bob, 'all').texts).toEqual([...before, 'while away 1', 'while away 2']));
    // A frame of a message already caught up (another device's socket, a second instance) changes nothing.
    const [last] = (await bob.history('all')).slice(-1);
    bob.frames.dispatch({ type: 'chat_message', message: last! });
    await bob.client.store.authenticated(conversationIdFor(bob.id, 'all'));
    expect(screen(bob, 'all').texts).toEqual([...before, 'while away 1', 'while away 2']);
  });
});
