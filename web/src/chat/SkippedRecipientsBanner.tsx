import { AlertTriangle } from 'lucide-react';
import { useSyncExternalStore } from 'react';
import type { SkippedRecipients } from '@enclave/client';
import { skippedWarning } from './skipped-recipients';

/** Names the members the latest epoch of this conversation was not wrapped for (docs/security.md §4). */
export function SkippedRecipientsBanner({ skipped, conversationId }: { skipped: SkippedRecipients; conversationId: string }) {
  const members = useSyncExternalStore(skipped.subscribe, () => skipped.of(conversationId));
  const warning = skippedWarning(members);
  if (!warning) return null;
  return (
    <p role="status" className="flex items-start gap-2 border-b border-amber-500/40 bg-amber-500/10 px-4 py-2 text-sm text-amber-200">
      <AlertTriangle className="mt-0.5 size-4 shrink-0 text-amber-300" aria-hidden="true" />
      {warning}
    </p>
  );
}
