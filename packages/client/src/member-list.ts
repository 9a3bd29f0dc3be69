/**
 * The member list a member's client holds (every member with their public keys): fetched whole
 * once, and a member it lacks (one who joined a moment ago) fetched by id, not with the whole list
 * again, which is some 80 MB at 100,000 members.
 */
import { limits, routes, type PublicUser } from '@enclave/protocol';
import { isApiFailure } from './api-failure';
import type { CallRoute } from './member-client';

/** The member list (with everyone's public keys) as the platform holds it. */
export type MemberList = {
  /** The list, from a cache when there is one. */
  current(): Promise<readonly PublicUser[]>;
  /** The list fresh from the server. */
  fresh(): Promise<readonly PublicUser[]>;
  /**
   * The list with these members in it, if they exist: a member who joined a moment ago may not be
   * held yet, and is fetched by id rather than with the whole list ({@link holding}).
   */
  including(ids: readonly string[]): Promise<readonly PublicUser[]>;
};

/** A member list's members replaced by those fetched again, and those it lacked added. */
export function mergeUsers(held: readonly PublicUser[], fetched: readonly PublicUser[]): PublicUser[] {
  const byId = new Map(fetched.map((u) => [u.id, u]));
  const merged = held.map((u) => byId.get(u.id) ?? u);
  const known = new Set(held.map((u) => u.id));
  return [...merged, ...fetched.filter((u) => !known.has(u.id))];
}

/**
 * {@link MemberList.including} over a list held: the members it lacks fetched by id with `lookup`
 * (at most `limits.usersPerLookup`; for more, or from a server without the look-up, the whole list
 * fresh), then `keep` puts them in the
 * list held and answers it. At 100,000 members the whole list is some 80 MB; a newcomer is 1 KB.
 */
export async function holding(
  held: readonly PublicUser[],
  ids: readonly string[],
  list: {
    fresh(): Promise<readonly PublicUser[]>;
    lookup(ids: string[]): Promise<readonly PublicUser[]>;
    keep(found: readonly PublicUser[]): readonly PublicUser[];
  },
): Promise<readonly PublicUser[]> {
  const known = new Set(held.map((u) => u.id));
  const missing = [...new Set(ids)].filter((id) => !known.has(id));
  if (!missing.length) return held;
  if (missing.length > limits.usersPerLookup) return list.fresh();
  // An instance of a version from before the look-up (1.0.0, during an upgrade) answers 404.
  const found = await list.lookup(missing).catch((error: unknown) => {
    if (isApiFailure(error, 404)) return null;
    throw error;
  });
  if (found === null) return list.fresh();
  return found.length ? list.keep(found) : held;
}

/** The member list fetched through the transport, one request at a time; a failed fetch is not kept. */
export function fetchedMemberList(call: CallRoute): MemberList {
  let users: Promise<readonly PublicUser[]> | null = null;
  const fresh = () => {
    const fetched = call(routes.users, {}).then((data) => data.users);
    users = fetched;
    fetched.catch(() => {
      if (users === fetched) users = null;
    });
    return fetched;
  };
  const current = () => users ?? fresh();
  const lookup = async (ids: string[]) => (await call(routes.lookupUsers, { body: { ids } })).users;
  const including = async (ids: readonly string[]) => {
    const held = await current();
    const keep = (found: readonly PublicUser[]) => {
      const merged = mergeUsers(held, found);
      users = Promise.resolve(merged);
      return merged;
    };
    return holding(held, ids, { fresh, lookup, keep });
  };
  return { current, fresh, including };
}
