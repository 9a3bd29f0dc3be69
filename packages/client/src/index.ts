/**
 * @enclave/client: the member's side of Enclave that is neither screen nor network — key trust,
 * sending with sender keys, reading them — shared by the web app and the server's test client so
 * that integration tests run the real client logic. Network and storage come in as small
 * interfaces; this package imports only `@enclave/protocol` and `@enclave/crypto`.
 */
export { isApiFailure, isMembershipChanged, isTransientFailure, MAX_RETRY_AFTER_MS, requestedWaitMs, retryAfterMs } from './api-failure';
export type { ApiFailure } from './api-failure';
export { ChatStore } from './chat-store';
export type { ChatStoreOptions, HistoryParams } from './chat-store';
export type { ConversationView, Outgoing } from './conversation';
export { FrameDispatcher } from './frame-dispatcher';
export type { FrameOf, FrameSource } from './frame-dispatcher';
export { Groups } from './groups';
export { CACHED_ITEMS_PER_CONVERSATION } from './history-cache';
export type { CachedHistory, HistoryCache } from './history-cache';
export type { GroupView, GroupsOptions } from './groups';
export { KEY_CHANGED, KeyTrust, RecipientKeyError } from './key-trust';
export type {
  KeyChanged,
  KeyTrustCrypto,
  KeyTrustOptions,
  PinRecord,
  PinStatus,
  PinStore,
  Recipient,
  RecipientCheck,
  SkippedRecipient,
} from './key-trust';
export { ChannelKey, NEWCOMER_WAIT_MS } from './channel-key';
export type { ChannelKeyApi, ChannelKeyCrypto, ChannelKeyOptions, WrapShares } from './channel-key';
export { MemberClient } from './member-client';
export { fetchedMemberList, holding, mergeUsers } from './member-list';
export type { MemberList } from './member-list';
export type { CallRoute, IncomingListener, MemberClientOptions, MemberTransport, RemovedListener } from './member-client';
export { MemoryPinStore } from './memory-pin-store';
export { MessageDecryptor } from './message-decryptor';
export type { DecryptResult, MessageDecryptorOptions } from './message-decryptor';
export { PublicKeyCache } from './public-key-cache';
export type { ImportedKeys, KeyOwner } from './public-key-cache';
export { SEND_RETRY_DELAYS_MS, SenderKeys } from './sender-keys';
export type { Outbound, RecipientTrust, SenderKeysApi, SenderKeysCrypto, SenderKeysOptions } from './sender-keys';
export { SendingEpochs } from './sending-epochs';
export type {
  CreatedEpoch,
  EncryptedMessage,
  EpochTransport,
  SendingCrypto,
  SendingEpochsOptions,
  WrappingTransport,
} from './sending-epochs';
export { SkippedRecipients } from './skipped-recipients';
export { PROGRESS_EVERY, serveWrapRequests, wrapInWorkers } from './wrap-pool';
export type { WrapReply, WrapRequest, WrapScope, WrapWorker } from './wrap-pool';
