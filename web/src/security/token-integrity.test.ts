import { generateAccessToken } from '@enclave/crypto';
import { describe, expect, it } from 'vitest';
import { tokenIntegrityFinding } from './token-integrity';

describe('token integrity detection', () => {
  it('finds nothing in an issued token or in one that is only too short', () => {
    expect(tokenIntegrityFinding(generateAccessToken())).toBeNull();
    expect(tokenIntegrityFinding('abc')).toBeNull();
  });

  it('tells a low-entropy token from a malformed one', () => {
    expect(tokenIntegrityFinding('0'.repeat(64))?.type).toBe('low_entropy_token');
    expect(tokenIntegrityFinding('01'.repeat(32))?.type).toBe('low_entropy_token');
    expect(tokenIntegrityFinding('0123456789ABCDEF'.repeat(4))?.type).toBe('invalid_token_format');
    expect(tokenIntegrityFinding('0123456789abcdef'.repeat(4) + 'a')?.type).toBe('invalid_token_format');
  });
});
