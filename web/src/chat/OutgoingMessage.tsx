import { AlertCircle, Check, Clock } from 'lucide-react';
import { Button } from '../components/ui/Button';
import { cn } from '../lib/cn';
import type { Outgoing } from '@enclave/client';

/** What the member can do with a message that could not be sent. */
export type OutgoingActions = { retry: (message: Outgoing) => void; discard: (message: Outgoing) => void };

/** On the member's own stored messages: the server has it (the send's answer, or history). */
export function SentMark() {
  return (
    <span className="ml-auto inline-flex items-center gap-1 text-muted" title="Sent">
      <Check className="size-3.5" aria-hidden="true" />
      <span className="sr-only">Sent</span>
    </span>
  );
}

/** A message of the member's own not stored yet: being sent, or not sent with Retry and Discard. */
export function OutgoingMessage({ message, sender, actions }: { message: Outgoing; sender: string; actions: OutgoingActions }) {
  const failed = message.state === 'failed';
  return (
    <li
      className={cn('min-w-0 rounded-lg border px-3 py-2', failed ? 'border-red-500/60 bg-red-950/30' : 'border-accent/30 bg-accent/5')}
      data-outgoing={message.state}
    >
      <div className="mb-1 flex flex-wrap items-center gap-2 text-xs">
        <span className="font-semibold text-accent">{sender}</span>
        {failed ? (
          <span className="ml-auto inline-flex items-center gap-1 font-medium text-red-300">
            <AlertCircle className="size-3.5" aria-hidden="true" /> Not sent
          </span>
        ) : (
          <span className="ml-auto inline-flex items-center gap-1 text-muted">
            <Clock className="size-3.5" aria-hidden="true" /> Sending…
          </span>
        )}
      </div>
      <p className="whitespace-pre-wrap text-sm wrap-anywhere">{message.text}</p>
      {failed ? (
        <div className="mt-2 flex flex-wrap gap-2">
          <Button size="sm" onClick={() => actions.retry(message)}>
            Retry
          </Button>
          <Button size="sm" variant="ghost" onClick={() => actions.discard(message)}>
            Discard
          </Button>
        </div>
      ) : null}
    </li>
  );
}
