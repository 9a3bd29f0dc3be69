import { describe, it, expect } from 'vitest';
import * as api from './index';

describe('package index', () => {
  it('exports exactly the public API, and no test-only helpers', () => {
    expect(Object.keys(api).sort()).toEqual(
      [
        'CryptoError',
        'advanceChannelSecret',
        'checkAccessToken',
        'createAccount',
        'createEpoch',
        'decryptAttachment',
        'decryptMessage',
        'encryptAttachment',
        'deriveLoginKey',
        'encryptMessage',
        'fingerprint',
        'fromBase64',
        'fromHex',
        'generateAccessToken',
        'newChannelSecret',
        'openChannelShare',
        'senderChainKey',
        'startWrap',
        'verifyShareKey',
        'wrapShares',
        'importPublicIdentity',
        'openEpochShare',
        'openPrivateKeys',
        'safetyNumber',
        'sealPrivateKeys',
        'shannonEntropy',
        'toBase64',
        'toHex',
        'utf8',
      ].sort(),
    );
  });

  it('throws CryptoError instances that carry their kind and name', () => {
    const e = new api.CryptoError('too_long');
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('CryptoError');
    expect(e.kind).toBe('too_long');
    expect(e.message).toBe('too_long');
  });
});
