import type { KeyTrust, PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';

const noPins: ReadonlyMap<string, PinStatus> = new Map();

/** What the member can decide about a contact's keys, after comparing safety numbers. */
export type PinActions = {
  /** Pins this fingerprint as the contact's, unverified (a changed key acknowledged). */
  accept: (contactId: string, fingerprint: string) => Promise<void>;
  /** Pins this fingerprint as the contact's and marks it verified. */
  verify: (contactId: string, fingerprint: string) => Promise<void>;
  clearVerification: (contactId: string) => Promise<void>;
};

/**
 * Every action on `trust`'s pins, each refreshing the queries under `queryKey` (those that show
 * pins) once it is stored.
 */
export function usePinActions(trust: KeyTrust, queryKey: readonly unknown[]): PinActions {
  const queryClient = useQueryClient();
  const refresh = () => queryClient.invalidateQueries({ queryKey });
  return {
    accept: (contactId, fingerprint) => trust.accept(contactId, fingerprint).then(refresh),
    verify: (contactId, fingerprint) => trust.verify(contactId, fingerprint).then(refresh),
    clearVerification: (contactId) => trust.clearVerification(contactId).then(refresh),
  };
}

/**
 * Pin statuses of the listed members, and the member's decisions on them. Both go through the
 * chat's one {@link KeyTrust}, so what the screen shows is what sending and reading decide.
 */
export function useKeyPins(trust: KeyTrust, ownerId: string, users: readonly PublicUser[] | undefined) {
  const keys = users?.map((u) => `${u.id}/${u.encryptionPublicKey}/${u.signingPublicKey}`) ?? [];
  const query = useQuery({
    queryKey: ['key-pins', ownerId, keys],
    queryFn: () => trust.check(users ?? []),
    enabled: users !== undefined,
  });
  const actions = usePinActions(trust, ['key-pins', ownerId]);
  return { pins: query.data ?? noPins, actions };
}
