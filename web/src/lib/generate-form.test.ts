import { describe, expect, it } from 'vitest';
import { generateRequestFrom, initialGenerateForm, type GenerateForm } from './generate-form';

const form = (patch: Partial<GenerateForm>): GenerateForm => ({ ...initialGenerateForm, ...patch });

describe('generateRequestFrom', () => {
  it('sends the defaults: 10 keys for 365 days', () => {
    expect(generateRequestFrom(initialGenerateForm)).toEqual({ ok: true, request: { quantity: 10, expirationDays: 365 } });
  });

  it('leaves out an empty or zero expiration', () => {
    expect(generateRequestFrom(form({ expirationDays: '' }))).toEqual({ ok: true, request: { quantity: 10 } });
    expect(generateRequestFrom(form({ expirationDays: '0' }))).toEqual({ ok: true, request: { quantity: 10 } });
  });

  it('carries a trimmed purchase ID, a price and the canary flag', () => {
    expect(generateRequestFrom(form({ quantity: '25', purchaseId: '  batch-42 ', salePrice: '30', canary: true }))).toEqual({
      ok: true,
      request: { quantity: 25, expirationDays: 365, purchaseId: 'batch-42', salePrice: 30, canary: true },
    });
  });

  it('refuses quantities outside 1 to 1000 and fractions', () => {
    for (const quantity of ['0', '1001', '2.5', '', 'ten']) {
      expect(generateRequestFrom(form({ quantity }))).toEqual({ ok: false, message: 'Quantity must be between 1 and 1000' });
    }
  });

  it('refuses a negative price and fractional days', () => {
    expect(generateRequestFrom(form({ salePrice: '-1' })).ok).toBe(false);
    expect(generateRequestFrom(form({ expirationDays: '1.5' })).ok).toBe(false);
  });
});
