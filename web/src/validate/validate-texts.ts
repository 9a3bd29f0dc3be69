/** The key validation screen's texts (docs/spec.md §2, §5 and §8). */
import { errorTexts } from '@enclave/protocol';
import { failureToast as bad, successToast as good } from '../components/ui/toast-store';

export const validateToasts = {
  blank: bad('Invalid Input', 'Please enter an access key'),
  valid: good('Valid Access Key', errorTexts.keyValid),
  failed: (serverText: string | null) => bad('Validation Failed', serverText ?? 'Failed to validate access key. Please try again.'),
} as const;

/** Why a key may be refused, in the words buyers need. */
export const commonIssues: readonly { title: string; detail: string }[] = [
  { title: 'Key already used', detail: 'Each key registers exactly one member. A used key cannot be used again.' },
  { title: 'Key expired', detail: 'Keys carry an expiry date set when the batch was made. Ask staff for a replacement.' },
  {
    title: 'Key not valid or corrupted',
    detail: 'Check that all 64 characters were copied, with no spaces. Keys are case-sensitive: lowercase only.',
  },
  {
    title: 'Not from an authorized source',
    detail: 'Only keys bought through the community server ticket are issued by the network. Others are refused.',
  },
];
