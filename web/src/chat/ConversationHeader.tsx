import type { GroupView, PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import { Fingerprint, Hash, Lock, Users } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '../components/ui/Button';
import { plural } from '../lib/format';
import type { SocketState } from '../net/socket';
import { ConnectionBadge } from './ConnectionBadge';
import { groupTitle } from './groups';
import { VerifiedMark } from './VerifiedMark';

type ConversationHeaderProps = {
  peer: PublicUser | null;
  /** The open group, with its members control; null outside a group. */
  group: { view: GroupView; members: ReactNode } | null;
  pin: PinStatus | undefined;
  socketState: SocketState;
  onShowSafetyNumber: (userId: string) => void;
  /** The phone's way to the member list (hidden where the sidebar shows it). */
  members: ReactNode;
  /** The disappearing-message timer. */
  timer: ReactNode;
  /** More of the conversation's own controls (search). */
  actions?: ReactNode;
};

export function ConversationHeader({
  peer,
  group,
  pin,
  socketState,
  onShowSafetyNumber,
  members,
  timer,
  actions,
}: ConversationHeaderProps) {
  const Icon = peer ? Lock : group ? Users : Hash;
  return (
    <header className="grid gap-2 border-b border-border p-3 sm:p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        {members}
        {/* On the left: the toasts appear over the header's right end. */}
        {actions}
        <div className="min-w-0 grow">
          <h2 className="flex items-center gap-2 text-base font-semibold wrap-anywhere sm:text-lg">
            <Icon className="size-4 shrink-0 text-accent" aria-hidden="true" />
            {peer ? `Direct message · ${peer.username}` : group ? groupTitle(group.view) : 'General Channel'}
            {peer && pin?.verified ? <VerifiedMark className="size-4" /> : null}
          </h2>
          {group ? <p className="text-xs text-muted">{plural(group.view.members.length, 'member')}</p> : null}
        </div>
        <div className="flex items-center gap-2">
          {group?.members}
          {peer && pin ? (
            <Button variant="outline" size="sm" onClick={() => onShowSafetyNumber(peer.id)}>
              <Fingerprint aria-hidden="true" /> Safety number
            </Button>
          ) : null}
          <ConnectionBadge state={socketState} />
        </div>
      </div>
      {timer}
    </header>
  );
}
