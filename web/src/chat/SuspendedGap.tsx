import type { Message } from '@enclave/protocol';
import { ShieldOff } from 'lucide-react';
import { memo } from 'react';
import { suspendedText } from './suspended-gap';

/**
 * One row in place of the messages sent while the member was banned: their epochs were never
 * wrapped for this member, so they cannot be read, and a run of "🔒 [Encrypted Message]" rows
 * would look broken (./suspended-gap.ts).
 */
export const SuspendedGap = memo(function SuspendedGap({ messages }: { messages: Message[] }) {
  return (
    <li
      className="flex items-center justify-center gap-1.5 rounded-md border border-dashed border-border px-2 py-1.5 text-center text-xs text-muted"
      // The oldest row's anchor when older pages come in (MessageList.tsx).
      data-message-id={messages[0]?.id}
      data-suspended-gap={messages.length}
    >
      <ShieldOff className="size-3.5 shrink-0" aria-hidden="true" />
      {suspendedText(messages.length)}
    </li>
  );
});
