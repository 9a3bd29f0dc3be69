/**
 * What /security shows, each read fresh when the page opens (the app's queries are otherwise
 * never stale, docs/spec.md §9; a security check must not show last visit's answer).
 */
import { fingerprint } from '@enclave/crypto';
import type { PublicUser } from '@enclave/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Session } from '../auth/auth-context';
import { loadIdentity } from '../auth/key-store';
import { indexedDbPinStore } from '../chat/key-pins';
import { usersQuery } from '../chat/use-users';
import * as api from '../net/http';
import { fetchMySecurity, fetchSessions } from '../net/security-api';
import { cryptoSelfTest } from '../security/natives';
import { pinRows } from './status-checks';

const fresh = { staleTime: 0, gcTime: 0 } as const;

export const securityKeys = {
  sessions: ['security', 'sessions'] as const,
};

export function useSessionCheck() {
  return useQuery({ queryKey: ['security', 'me'], queryFn: api.me, ...fresh });
}

export function useWebCryptoCheck() {
  return useQuery({
    queryKey: ['security', 'webcrypto'],
    queryFn: async () => Boolean(globalThis.crypto?.subtle) && (await cryptoSelfTest(globalThis.crypto)),
    ...fresh,
  });
}

/** The stored private keys' `extractable` flags, read from IndexedDB; null when none are stored. */
export function useStoredKeysCheck(userId: string) {
  return useQuery({
    queryKey: ['security', 'stored-keys', userId],
    queryFn: async () => {
      const identity = await loadIdentity(userId);
      return identity
        ? [identity.privateIdentity.decryptKey, identity.privateIdentity.signKey].map((k) => ({ extractable: k.extractable }))
        : null;
    },
    ...fresh,
  });
}

export function useOwnFingerprint(session: Session) {
  return useQuery({
    queryKey: ['security', 'fingerprint', session.user.id],
    queryFn: () => fingerprint(session.publicIdentity),
    staleTime: Infinity,
  });
}

async function listedFingerprints(users: readonly PublicUser[], selfId: string) {
  const entries = await Promise.all(
    users
      .filter((u) => u.id !== selfId)
      .map(async (u) => {
        try {
          return [u.id, { username: u.username, fingerprint: await fingerprint(u) }] as const;
        } catch {
          // Keys that are not even base64 are refused everywhere else; here they are simply not listed.
          return null;
        }
      }),
  );
  return new Map(entries.filter((e) => e !== null));
}

/** The contacts pinned in this browser against the member list as the server gives it now (no pin is written here). */
export function usePinRows(selfId: string) {
  // The list as the server gives it now, not as the chat last saw it.
  const users = useQuery({ ...usersQuery(useQueryClient(), api.listUsers), staleTime: 0 });
  const pins = useQuery({ queryKey: ['security', 'pins', selfId], queryFn: () => indexedDbPinStore.read(selfId), ...fresh });
  const rows = useQuery({
    queryKey: ['security', 'pin-rows', selfId, users.data, pins.data],
    queryFn: async () => pinRows(pins.data ?? [], await listedFingerprints(users.data ?? [], selfId)),
    enabled: users.data !== undefined && pins.data !== undefined,
    // A decision on a pin changes the key: the rows stay shown (an open safety number with them)
    // until the new ones are computed.
    placeholderData: (previous) => previous,
    ...fresh,
  });
  return { rows: rows.data, error: users.error ?? pins.error ?? rows.error };
}

export function useMySecurity() {
  return useQuery({ queryKey: ['security', 'mine'], queryFn: fetchMySecurity, ...fresh });
}

export function useSessions() {
  return useQuery({ queryKey: securityKeys.sessions, queryFn: fetchSessions, ...fresh });
}
