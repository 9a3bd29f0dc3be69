/** The generate-keys form of /admin and of the creator console (pure, so it is unit-tested). */
import { generateKeysRequestSchema, limits, type GenerateKeysRequest } from '@enclave/protocol';

/** What the generate form holds: the inputs' raw text, plus the canary box. */
export type GenerateForm = {
  quantity: string;
  expirationDays: string;
  purchaseId: string;
  salePrice: string;
  canary: boolean;
};

export const initialGenerateForm: GenerateForm = {
  quantity: String(limits.keyQuantityDefault),
  expirationDays: String(limits.keyExpirationDaysDefault),
  purchaseId: '',
  salePrice: '',
  canary: false,
};

export type GenerateRequestResult = { ok: true; request: GenerateKeysRequest } | { ok: false; message: string };

/** A number typed into a field, or NaN when the text is not one (Number('') would be 0). */
function numberFrom(text: string): number {
  const trimmed = text.trim();
  return trimmed === '' ? Number.NaN : Number(trimmed);
}

/**
 * The request body for the form (docs/spec.md §5), not yet checked: an empty or zero
 * expiration and an empty purchase ID or price are left out; a number that is none is NaN.
 */
function generateRequestBody(form: GenerateForm): GenerateKeysRequest {
  const request: GenerateKeysRequest = { quantity: numberFrom(form.quantity) };
  const days = form.expirationDays.trim() === '' ? 0 : numberFrom(form.expirationDays);
  if (days !== 0) request.expirationDays = days;
  const purchaseId = form.purchaseId.trim();
  if (purchaseId) request.purchaseId = purchaseId;
  if (form.salePrice.trim() !== '') request.salePrice = numberFrom(form.salePrice);
  if (form.canary) request.canary = true;
  return request;
}

/**
 * The checked request body for the form, or what to fix, in words for people. The checks are a
 * courtesy; the server decides.
 */
export function generateRequestFrom(form: GenerateForm): GenerateRequestResult {
  const request = generateRequestBody(form);
  const { quantity } = request;
  if (!Number.isInteger(quantity) || quantity < limits.keyQuantityMin || quantity > limits.keyQuantityMax) {
    return { ok: false, message: `Quantity must be between ${limits.keyQuantityMin} and ${limits.keyQuantityMax}` };
  }

  const parsed = generateKeysRequestSchema.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path[0];
    const message =
      field === 'expirationDays'
        ? 'Expiration must be whole days between 1 and 3650 (empty or 0: never expires)'
        : field === 'salePrice'
          ? 'Sale price must be a number between 0 and 1,000,000'
          : field === 'purchaseId'
            ? 'Purchase ID must be at most 128 characters'
            : (issue?.message ?? 'Please check the form');
    return { ok: false, message };
  }
  return { ok: true, request: parsed.data };
}
