/**
 * The member's own public keys are derived in the browser from their private keys (at login) and
 * kept next to them; the server's copy is only ever compared with that, never used. A server that
 * listed the member with a key of its own would otherwise be sent every chain key they wrap.
 */
import type { PublicIdentity } from '@enclave/crypto';
import { failureToast } from '../components/ui/toast-store';

export const OWN_KEYS_MISMATCH_TEXT = "The server's copy of your public keys does not match your private keys.";

/** Shown when a login or a session restore is refused because the server's keys are not the member's. */
export const ownKeysMismatchToast = failureToast('Authentication Failed', OWN_KEYS_MISMATCH_TEXT);

/** The server says the member's public keys are not the ones their private keys belong to. */
export class OwnKeysMismatchError extends Error {
  constructor() {
    super(OWN_KEYS_MISMATCH_TEXT);
    this.name = 'OwnKeysMismatchError';
  }
}

/** True when both keys are exactly the same (base64 SPKI compared as stored). */
export function samePublicIdentity(a: PublicIdentity, b: PublicIdentity): boolean {
  return a.encryptionPublicKey === b.encryptionPublicKey && a.signingPublicKey === b.signingPublicKey;
}
