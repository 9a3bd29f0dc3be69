/**
 * @enclave/crypto: every cryptographic operation of Enclave (docs/security.md §2-§5), on
 * WebCrypto only so the same code runs in the browser and in Node tests. It imports neither the
 * server nor the web app. Only the names below are the package's API; other exports of its
 * modules exist for its own tests.
 */
export { CryptoError } from './errors';
export type { CryptoErrorKind } from './errors';
export { toBase64, fromBase64, toHex, fromHex, utf8 } from './encoding';
export { generateAccessToken, shannonEntropy, checkAccessToken, deriveLoginKey } from './token';
export type { TokenCheck } from './token';
export { importPublicIdentity } from './identity';
export type { PublicIdentity, PrivateIdentity, OpenedIdentity } from './identity';
export { createAccount } from './account';
export type { NewAccount } from './account';
export { sealPrivateKeys, openPrivateKeys } from './key-bundle';
export { fingerprint, safetyNumber } from './fingerprint';
export { createEpoch, openEpochShare } from './sender-keys';
export type { Epoch, EpochShareUpload, EpochShareInput } from './sender-keys';
export {
  newChannelSecret,
  advanceChannelSecret,
  senderChainKey,
  verifyShareKey,
  startWrap,
  wrapShares,
  openChannelShare,
} from './channel-keys';
export type { ChannelSecret, ChannelWrapHeader, ChannelShare, ShareIdentity, ShareRecipient, SignedShareRecipient } from './channel-keys';
export { encryptMessage, decryptMessage } from './message';
export type { MessagePlaintext } from './message';
export { encryptAttachment, decryptAttachment } from './attachment';
export type { EncryptedAttachment } from './attachment';
