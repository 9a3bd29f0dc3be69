import { fingerprint, safetyNumber, type PublicIdentity } from '@enclave/crypto';
import { useQuery } from '@tanstack/react-query';
import { toDataURL } from 'qrcode';

export type SafetyNumberView = {
  /** The member's own fingerprint, from the keys derived locally at sign-in. */
  own: string;
  /** The safety number of the member and the contact: 12 groups of 5 digits. */
  number: string;
  /** A QR code of its 60 digits, as a `data:` URL (the CSP's img-src allows `data:`). */
  qrCode: string;
};

/**
 * The safety number of the member (`self`) with a contact whose listed keys have
 * `contactFingerprint`, and its QR code; nothing while `contactFingerprint` is undefined.
 */
export function useSafetyNumber(self: PublicIdentity, contactFingerprint: string | undefined) {
  return useQuery({
    queryKey: ['safety-number', self.encryptionPublicKey, self.signingPublicKey, contactFingerprint],
    queryFn: async (): Promise<SafetyNumberView> => {
      const own = await fingerprint(self);
      const number = await safetyNumber(own, contactFingerprint!);
      const qrCode = await toDataURL(number.replaceAll(' ', ''), { errorCorrectionLevel: 'M', margin: 2, width: 192 });
      return { own, number, qrCode };
    },
    enabled: contactFingerprint !== undefined,
    staleTime: Infinity,
  });
}
