/**
 * The member's one client (@enclave/client's MemberClient) wired to this browser: the route table
 * over fetch (net/http.ts), the socket's frames, the pins and the sealed history cache in IndexedDB
 * (chat/key-pins.ts, chat/history-cache.ts) and the member list held by TanStack Query
 * (chat/use-users.ts). Nothing is decided here.
 */
import {
  holding,
  MemberClient,
  wrapInWorkers,
  type CallRoute,
  type FrameSource,
  type HistoryCache,
  type PinStore,
  type WrapShares,
} from '@enclave/client';
import { routes, type PublicUser } from '@enclave/protocol';
import type { QueryClient } from '@tanstack/react-query';
import type { Session } from '../auth/auth-context';
import { indexedDbHistoryCache } from '../chat/history-cache';
import { indexedDbPinStore } from '../chat/key-pins';
import { ensureUsers, keepUsers, refetchUsers } from '../chat/use-users';
import * as http from '../net/http';

/** What the browser provides by default, replaceable in tests (`historyCache: null`: none). */
export type MemberClientDeps = { call?: CallRoute; pins?: PinStore; historyCache?: HistoryCache | null };

let workers: Worker[] | null = null;

/**
 * Wraps the channel's key in Web Workers, one per core up to four, made at the first wrap and kept
 * for the page: a removal's wrap for 100,000 members takes seconds, none of them on the page's thread.
 */
const wrapOffThePage: WrapShares = (args) => {
  workers ??= Array.from(
    { length: Math.min(4, Math.max(1, navigator.hardwareConcurrency || 1)) },
    () => new Worker(new URL('./wrap-worker.ts', import.meta.url), { type: 'module', name: 'channel-key-wrap' }),
  );
  return wrapInWorkers({ ...args, workers });
};

/** The client of one signed-in member, reading `frames` (the socket's, through its one dispatcher). */
export function createMemberClient(
  session: Session,
  queryClient: QueryClient,
  frames: FrameSource,
  deps: MemberClientDeps = {},
): MemberClient {
  const call = deps.call ?? http.call;
  const listUsers = async () => (await call(routes.users, {})).users;
  const lookupUsers = async (ids: string[]) => (await call(routes.lookupUsers, { body: { ids } })).users;
  const fresh = () => refetchUsers(queryClient, listUsers);
  return new MemberClient({
    // The member's own keys are the ones derived from their private keys at login, never the list's.
    self: { id: session.user.id, ...session.publicIdentity },
    keys: session.privateIdentity,
    ...(session.share ? { share: session.share, wrap: wrapOffThePage } : {}),
    transport: { call, frames },
    pins: deps.pins ?? indexedDbPinStore,
    members: {
      current: () => ensureUsers(queryClient, listUsers),
      fresh,
      including: async (ids) => {
        const held = await ensureUsers(queryClient, listUsers);
        const keep = (found: readonly PublicUser[]) => keepUsers(queryClient, held, found);
        return holding(held, ids, { fresh, lookup: lookupUsers, keep });
      },
    },
    ...(deps.historyCache === null ? {} : { historyCache: deps.historyCache ?? indexedDbHistoryCache(session.user.id) }),
  });
}
