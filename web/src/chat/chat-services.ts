import * as e2e from '@enclave/crypto';
import type { QueryClient } from '@tanstack/react-query';
import type { Session } from '../auth/auth-context';
import * as api from '../net/http';
import { ChatStore } from './chat-store';
import { KEY_CHANGED, MessageDecryptor } from './message-decryptor';
import { PublicKeyCache } from './public-keys';
import { RecipientKeyError, SenderKeys } from './sender-keys';
import { checkPins } from './key-pins';
import { ensureUsers, refetchUsers } from './use-users';

export type ChatServices = {
  senderKeys: SenderKeys;
  decryptor: MessageDecryptor;
  store: ChatStore;
};

/** Wires the chat's plain-TS parts to the network, the crypto package and the member list. */
export function createChatServices(session: Session, queryClient: QueryClient): ChatServices {
  const publicKeys = new PublicKeyCache();
  // Members' keys found equal to their pins. Only agreement is remembered: a changed key is checked
  // again every time, so accepting it (re-pinning) makes its messages verifiable.
  const pinnedKeys = new Set<string>();
  const verifyKeyFor = async (userId: string): Promise<CryptoKey | null | typeof KEY_CHANGED> => {
    const users = await ensureUsers(queryClient).catch(() => []);
    const user = users.find((u) => u.id === userId);
    if (!user) return null;
    const keys = `${user.id}/${user.encryptionPublicKey}/${user.signingPublicKey}`;
    if (!pinnedKeys.has(keys)) {
      // The server's current key is trusted only while it is the pinned one (docs/security.md §5).
      const pins = await checkPins(session.user.id, [user]).catch((error: unknown) => {
        console.error('could not check the key pins', error);
        return null;
      });
      if (!pins) return null;
      if (pins.get(user.id)?.changed) return KEY_CHANGED;
      pinnedKeys.add(keys);
    }
    return publicKeys.verifyKey(user);
  };
  const decryptor = new MessageDecryptor({
    selfId: session.user.id,
    decryptKey: session.privateIdentity.decryptKey,
    fetchShares: api.fetchShares,
    verifyKeyFor,
    crypto: { openEpochShare: e2e.openEpochShare, decryptMessage: e2e.decryptMessage },
  });
  const senderKeys = new SenderKeys({
    self: { id: session.user.id, encryptionPublicKey: session.publicIdentity.encryptionPublicKey },
    signKey: session.privateIdentity.signKey,
    api: { conversationMembers: api.conversationMembers, createEpoch: api.createEpoch, sendMessage: api.sendMessage },
    crypto: { createEpoch: e2e.createEpoch, encryptMessage: e2e.encryptMessage },
    onEpochCreated: (epoch) => decryptor.addOwnEpoch(epoch),
    checkRecipients: async (recipients) => {
      let users = await ensureUsers(queryClient);
      // A member who joined a moment ago may not be in the cached list yet.
      if (recipients.some((r) => !users.some((u) => u.id === r.id))) users = await refetchUsers(queryClient);
      const pins = await checkPins(session.user.id, users);
      for (const r of recipients) {
        if (r.id === session.user.id) {
          // The member's own key is the one derived from their private key, whatever the list says.
          if (r.encryptionPublicKey !== session.publicIdentity.encryptionPublicKey) {
            throw new RecipientKeyError('The server offered an unknown key for your own account: not sending.');
          }
          continue;
        }
        const user = users.find((u) => u.id === r.id);
        if (!user || user.encryptionPublicKey !== r.encryptionPublicKey) {
          throw new RecipientKeyError('The server offered an unknown key for a member of this conversation: not sending.');
        }
        if (pins.get(r.id)?.changed) {
          throw new RecipientKeyError(`The key of ${user.username} changed: compare the safety number before sending.`);
        }
      }
    },
  });
  const store = new ChatStore({ history: api.history, decrypt: (messages) => decryptor.decrypt(messages) });
  return { senderKeys, decryptor, store };
}
