import { describe, expect, it } from 'vitest';
import { OWN_KEYS_MISMATCH_TEXT, OwnKeysMismatchError, ownKeysMismatchToast, samePublicIdentity } from './own-identity';
import { loginFailureToast } from '../login/login-errors';

const mine = { encryptionPublicKey: 'rsa-a', signingPublicKey: 'ec-a' };

describe('own public identity', () => {
  it('matches only when both keys are the same', () => {
    expect(samePublicIdentity(mine, { ...mine })).toBe(true);
    expect(samePublicIdentity(mine, { ...mine, encryptionPublicKey: 'rsa-server' })).toBe(false);
    expect(samePublicIdentity(mine, { ...mine, signingPublicKey: 'ec-server' })).toBe(false);
  });

  it("fails the login with the 'Authentication Failed' toast that says why", () => {
    expect(loginFailureToast(new OwnKeysMismatchError())).toEqual(ownKeysMismatchToast);
    expect(ownKeysMismatchToast).toMatchObject({
      title: 'Authentication Failed',
      description: OWN_KEYS_MISMATCH_TEXT,
      tone: 'destructive',
    });
  });
});
