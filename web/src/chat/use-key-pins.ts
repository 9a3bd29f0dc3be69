import type { KeyTrust, PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';

const noPins: ReadonlyMap<string, PinStatus> = new Map();

/**
 * Pin statuses of the listed members, and a way to accept a member's new key. Both go through the
 * chat's one {@link KeyTrust}, so what the screen shows is what sending and reading decide.
 */
export function useKeyPins(trust: KeyTrust, ownerId: string, users: readonly PublicUser[] | undefined) {
  const queryClient = useQueryClient();
  const keys = users?.map((u) => `${u.id}/${u.encryptionPublicKey}/${u.signingPublicKey}`) ?? [];
  const query = useQuery({
    queryKey: ['key-pins', ownerId, keys],
    queryFn: () => trust.check(users ?? []),
    enabled: users !== undefined,
  });
  const accept = useCallback(
    async (userId: string, fingerprint: string) => {
      await trust.accept(userId, fingerprint);
      await queryClient.invalidateQueries({ queryKey: ['key-pins', ownerId] });
    },
    [trust, ownerId, queryClient],
  );
  return { pins: query.data ?? noPins, accept };
}
