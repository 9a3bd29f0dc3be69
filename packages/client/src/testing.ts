/** Test fixtures shared by the client core's tests and the web app's (`@enclave/client/testing`). */
import { routes, type Message, type PublicUser, type RouteDefinition, type RouteInput, type RouteResponse } from '@enclave/protocol';
import type { CallRoute } from './member-client';

/** A member in good standing as the member list shows them, with these public keys. */
export function listedMember(id: string, username: string, keys: { encryptionPublicKey: string; signingPublicKey: string }): PublicUser {
  return {
    id,
    username,
    role: 'member',
    isCreatorAccount: false,
    isBanned: false,
    bannedReason: null,
    isCompromised: false,
    online: true,
    lastActivity: null,
    joinedAt: '2026-01-01T00:00:00.000Z',
    ...keys,
  };
}

/**
 * A message as the server stores and serves it: unless `fields` say otherwise, Bob's (`…0002`) in
 * the general channel, at index `id` of one epoch, with ciphertext `c${id}`.
 */
export function storedMessage(id: number, fields: Partial<Message> = {}): Message {
  return {
    id,
    conversationId: 'general',
    senderId: '00000000-0000-4000-8000-000000000002',
    senderUsername: 'bob',
    epochId: '00000000-0000-4000-9000-000000000001',
    index: id,
    encryptedContent: `c${id}`,
    timestamp: '2026-01-01T00:00:00.000Z',
    expiresAt: null,
    clientMessageId: null,
    targetId: null,
    ...fields,
  };
}

/** Fakes of routes, by their name in the route table: each takes the call's input and gives the answer. */
export type RouteFakes = {
  [K in keyof typeof routes]?: (input: RouteInput<(typeof routes)[K]>) => Promise<RouteResponse<(typeof routes)[K]>>;
};

/** A {@link CallRoute} answering from fakes; a route without one fails the test. */
export function fakeCall(fakes: RouteFakes): CallRoute {
  const names = Object.keys(routes) as (keyof typeof routes)[];
  return (route, input) => {
    const name = names.find((n) => (routes[n] as RouteDefinition) === route);
    const fake = name && fakes[name];
    if (!fake) return Promise.reject(new Error(`no fake for ${route.method} ${route.path}`));
    // The fake of this very route: its answer is the route's.
    return (fake as (input: unknown) => Promise<never>)(input);
  };
}
