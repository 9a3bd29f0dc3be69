import type { PublicUser } from '@enclave/protocol';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import { checkPins, pinFingerprint, type PinStatus } from './key-pins';

const noPins: ReadonlyMap<string, PinStatus> = new Map();

/** Pin statuses of the listed members, and a way to accept a member's new key. */
export function useKeyPins(ownerId: string, users: readonly PublicUser[] | undefined) {
  const queryClient = useQueryClient();
  const keys = users?.map((u) => `${u.id}/${u.encryptionPublicKey}/${u.signingPublicKey}`) ?? [];
  const query = useQuery({
    queryKey: ['key-pins', ownerId, keys],
    queryFn: () => checkPins(ownerId, users ?? []),
    enabled: users !== undefined,
  });
  const accept = useCallback(
    async (userId: string, fingerprint: string) => {
      await pinFingerprint(ownerId, userId, fingerprint);
      await queryClient.invalidateQueries({ queryKey: ['key-pins', ownerId] });
    },
    [ownerId, queryClient],
  );
  return { pins: query.data ?? noPins, accept };
}
