import type { KeyTrust, MemberList } from '@enclave/client';
import * as e2e from '@enclave/crypto';
import type { Session } from '../auth/auth-context';
import type { MemberSetup } from './p2p-controller';

/**
 * A room member's keys and trust, the chat's own: `trust` is the member's KeyTrust and `members`
 * the member list it checks against, so a room encrypts only for keys the member would trust in
 * the chat, and a changed key stops both alike.
 */
export function memberSetup(session: Session, trust: KeyTrust, members: MemberList): MemberSetup {
  return {
    // The member's own key is the one derived at login, never the list's.
    self: { id: session.user.id, encryptionPublicKey: session.publicIdentity.encryptionPublicKey },
    signKey: session.privateIdentity.signKey,
    decryptKey: session.privateIdentity.decryptKey,
    trust,
    members,
    crypto: {
      createEpoch: e2e.createEpoch,
      openEpochShare: e2e.openEpochShare,
      encryptMessage: e2e.encryptMessage,
      decryptMessage: e2e.decryptMessage,
    },
  };
}
