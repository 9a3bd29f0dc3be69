/**
 * Wires the chat's plain-TS parts (@enclave/client) to this browser: the network (net/http.ts),
 * the pins in IndexedDB (key-pins.ts) and the member list held by TanStack Query (use-users.ts).
 * Nothing is decided here: trust is KeyTrust's, sending SenderKeys', reading MessageDecryptor's.
 */
import { KeyTrust, MessageDecryptor, SenderKeys, type PinStore, type SenderKeysApi } from '@enclave/client';
import * as e2e from '@enclave/crypto';
import type { QueryClient } from '@tanstack/react-query';
import type { Session } from '../auth/auth-context';
import * as http from '../net/http';
import { ChatStore } from './chat-store';
import { indexedDbPinStore } from './key-pins';
import { SkippedRecipients } from './skipped-recipients';
import { ensureUsers, refetchUsers } from './use-users';

export type ChatServices = {
  trust: KeyTrust;
  senderKeys: SenderKeys;
  decryptor: MessageDecryptor;
  store: ChatStore;
  /** Members the latest epoch of each conversation left out (unusable keys), for the warning banner. */
  skipped: SkippedRecipients;
};

/** The server calls the chat makes: net/http.ts in the app, a fake in tests. */
export type ChatApi = SenderKeysApi & Pick<typeof http, 'fetchShares' | 'history' | 'listUsers'>;

const httpApi: ChatApi = {
  conversationMembers: http.conversationMembers,
  createEpoch: http.createEpoch,
  sendMessage: http.sendMessage,
  fetchShares: http.fetchShares,
  history: http.history,
  listUsers: http.listUsers,
};

/** What the browser provides by default, replaceable in tests. */
export type ChatServicesDeps = { api?: ChatApi; pins?: PinStore };

/** The member's one {@link KeyTrust} over this browser's pins (the chat's, and /security's for its decisions). */
export function createKeyTrust(
  session: Session,
  queryClient: QueryClient,
  listUsers: ChatApi['listUsers'] = http.listUsers,
  pins: PinStore = indexedDbPinStore,
): KeyTrust {
  return new KeyTrust({
    // The member's own keys are the ones derived from their private keys at login, never the list's.
    self: { id: session.user.id, ...session.publicIdentity },
    pins,
    members: {
      current: () => ensureUsers(queryClient, listUsers),
      fresh: () => refetchUsers(queryClient, listUsers),
    },
    crypto: { fingerprint: e2e.fingerprint, importPublicIdentity: e2e.importPublicIdentity },
  });
}

/** The chat's services for one signed-in member. */
export function createChatServices(session: Session, queryClient: QueryClient, deps: ChatServicesDeps = {}): ChatServices {
  const api = deps.api ?? httpApi;
  const trust = createKeyTrust(session, queryClient, api.listUsers, deps.pins);
  const skipped = new SkippedRecipients();
  const decryptor = new MessageDecryptor({
    selfId: session.user.id,
    decryptKey: session.privateIdentity.decryptKey,
    fetchShares: api.fetchShares,
    verifyKeyFor: (userId) => trust.verifyKeyFor(userId),
    crypto: { openEpochShare: e2e.openEpochShare, decryptMessage: e2e.decryptMessage },
  });
  const senderKeys = new SenderKeys({
    self: { id: session.user.id, encryptionPublicKey: session.publicIdentity.encryptionPublicKey },
    signKey: session.privateIdentity.signKey,
    api: { conversationMembers: api.conversationMembers, createEpoch: api.createEpoch, sendMessage: api.sendMessage },
    crypto: { createEpoch: e2e.createEpoch, encryptMessage: e2e.encryptMessage },
    onEpochCreated: (epoch) => decryptor.addOwnEpoch(epoch),
    onRecipientsSkipped: skipped.report,
    trust,
  });
  const store = new ChatStore({
    selfId: session.user.id,
    history: api.history,
    decrypt: (messages, shares) => decryptor.decrypt(messages, shares),
  });
  return { trust, senderKeys, decryptor, store, skipped };
}
