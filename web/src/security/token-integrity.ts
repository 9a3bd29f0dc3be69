/**
 * The token-integrity detection (docs/spec.md §5): a submitted token of the full length that is not
 * 64 lowercase hex characters with at least 3.5 bits of entropy per character. Every token Enclave
 * issues passes (docs/security.md §2), so a failing one was typed or made by someone else. A token
 * that is merely too short is a typing slip, never a detection.
 */
import { checkAccessToken } from '@enclave/crypto';
import { limits } from '@enclave/protocol';
import { detectionTexts, detectionTypes } from './tamper-texts';

const HEX = /^[0-9a-f]+$/;

export type TokenFinding = { type: string; description: string };

/** The detection a submitted (trimmed) token amounts to, or null when it is fine or only too short. */
export function tokenIntegrityFinding(token: string): TokenFinding | null {
  const check = checkAccessToken(token);
  if (check.ok || check.reason === 'too_short') return null;
  return token.length === limits.tokenLength && HEX.test(token)
    ? { type: detectionTypes.lowEntropyToken, description: detectionTexts.lowEntropyToken }
    : { type: detectionTypes.invalidTokenFormat, description: detectionTexts.invalidTokenFormat };
}
