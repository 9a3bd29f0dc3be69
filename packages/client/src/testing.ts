/** Test fixtures shared by the client core's tests and the web app's (`@enclave/client/testing`). */
import type { PublicUser } from '@enclave/protocol';

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
