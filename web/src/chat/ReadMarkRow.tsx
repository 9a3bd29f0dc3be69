import { CheckCheck } from 'lucide-react';
import { formatMessageTime } from '../lib/format';
import { readMarkText } from './read-receipts';

/**
 * "Read" under the member's own last message the peer has read in a DM; in a group, who has read it
 * (`readers`); when in its tooltip.
 */
export function ReadMarkRow({ readAt, today, readers }: { readAt: string; today: string; readers: readonly string[] | null }) {
  return (
    <li className="-mt-1 flex justify-end px-1 text-xs text-muted" data-testid="read-receipt">
      <span className="inline-flex items-center gap-1" title={`Read ${formatMessageTime(readAt, today)}`}>
        <CheckCheck className="size-3.5 text-accent" aria-hidden="true" />
        {readMarkText(readers)}
      </span>
    </li>
  );
}
