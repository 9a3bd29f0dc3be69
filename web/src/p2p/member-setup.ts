import { KeyTrust, type Recipient } from '@enclave/client';
import * as e2e from '@enclave/crypto';
import type { QueryClient } from '@tanstack/react-query';
import type { Session } from '../auth/auth-context';
import { indexedDbPinStore } from '../chat/key-pins';
import { ensureUsers, refetchUsers } from '../chat/use-users';
import type { MemberSetup } from './p2p-controller';

/**
 * A room member's keys and trust, the chat's own: members' public keys come from the member list
 * and are checked against the pins this browser holds, so a room encrypts only for keys the member
 * would trust in the chat, and a changed key stops both alike.
 */
export function memberSetup(session: Session, queryClient: QueryClient): MemberSetup {
  const members = { current: () => ensureUsers(queryClient), fresh: () => refetchUsers(queryClient) };
  const self = { id: session.user.id, ...session.publicIdentity };
  const trust = new KeyTrust({
    self,
    pins: indexedDbPinStore,
    members,
    crypto: { fingerprint: e2e.fingerprint, importPublicIdentity: e2e.importPublicIdentity },
  });
  return {
    selfId: self.id,
    signKey: session.privateIdentity.signKey,
    decryptKey: session.privateIdentity.decryptKey,
    async recipientsFor(ids) {
      let users = await members.current();
      if (ids.some((id) => id !== self.id && !users.some((u) => u.id === id))) users = await members.fresh();
      // The member's own key is the local copy, never the list's.
      const recipients = ids.flatMap((id): Recipient[] => {
        if (id === self.id) return [{ id, encryptionPublicKey: self.encryptionPublicKey }];
        const user = users.find((u) => u.id === id);
        return user ? [{ id, encryptionPublicKey: user.encryptionPublicKey }] : [];
      });
      return trust.checkRecipients('all', recipients);
    },
    verifyKeyFor: (userId) => trust.verifyKeyFor(userId),
    crypto: { createEpoch: e2e.createEpoch, openEpochShare: e2e.openEpochShare, encryptMessage: e2e.encryptMessage, decryptMessage: e2e.decryptMessage },
  };
}
