import type { PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import { Hash, Lock, ShieldAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '../components/ui/Button';
import type { SocketState } from '../net/socket';
import { ConnectionBadge } from './ConnectionBadge';

type ConversationHeaderProps = {
  peer: PublicUser | null;
  pin: PinStatus | undefined;
  socketState: SocketState;
  onAcceptKey: (userId: string, fingerprint: string) => void;
  /** The phone's way to the member list (hidden where the sidebar shows it). */
  members: ReactNode;
};

export function ConversationHeader({ peer, pin, socketState, onAcceptKey, members }: ConversationHeaderProps) {
  return (
    <header className="grid gap-2 border-b border-border p-3 sm:p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        {members}
        <h2 className="flex min-w-0 grow items-center gap-2 text-base font-semibold wrap-anywhere sm:text-lg">
          {peer ? <Lock className="size-4 shrink-0 text-accent" aria-hidden="true" /> : <Hash className="size-4 shrink-0 text-accent" aria-hidden="true" />}
          {peer ? `Direct message · ${peer.username}` : 'General Channel'}
        </h2>
        <ConnectionBadge state={socketState} />
      </div>
      {peer && pin ? (
        <p className="text-xs text-muted">
          Safety number with {peer.username}:{' '}
          <span className="font-mono text-foreground wrap-anywhere">
            {pin.fingerprint}
          </span>
        </p>
      ) : null}
      {peer && pin?.changed ? (
        <div role="alert" className="grid gap-2 rounded-lg border-2 border-red-500 bg-red-950/70 p-3 text-sm text-red-50">
          <p className="flex items-center gap-2 text-base font-bold text-red-300">
            <ShieldAlert className="size-5" aria-hidden="true" /> Warning: {peer.username}&apos;s keys have changed
          </p>
          <p>
            The server now hands out different keys for {peer.username} than the ones this browser first saw. Someone may
            be intercepting your messages. Compare the safety number above with {peer.username} in person or over another
            channel before you trust this conversation.
          </p>
          <Button
            variant="danger"
            size="sm"
            className="justify-self-start"
            onClick={() => onAcceptKey(peer.id, pin.fingerprint)}
          >
            I verified the new safety number
          </Button>
        </div>
      ) : null}
    </header>
  );
}
