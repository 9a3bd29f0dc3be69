import type { PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import { ShieldAlert } from 'lucide-react';
import { Button } from '../components/ui/Button';

type KeyChangeBannerProps = {
  /** The members of the conversation in view (the peer of a direct message, everyone in the channel). */
  members: readonly PublicUser[];
  pins: ReadonlyMap<string, PinStatus>;
  onVerify: (contactId: string) => void;
};

/**
 * The loud warning for each member of this conversation whose listed keys differ from their pin,
 * until the member compares the new safety number and verifies or acknowledges it: until then
 * their messages cannot be verified and nothing is sent to them (docs/security.md §5).
 */
export function KeyChangeBanner({ members, pins, onVerify }: KeyChangeBannerProps) {
  const changed = members.filter((m) => pins.get(m.id)?.changed);
  if (!changed.length) return null;
  return (
    <div role="alert" className="grid gap-2 border-b-2 border-red-500 bg-red-950/80 px-4 py-3 text-sm text-red-50">
      {changed.map((member) => (
        <div key={member.id} className="flex flex-wrap items-center justify-between gap-2" data-key-changed={member.username}>
          <p className="flex items-center gap-2 font-bold">
            <ShieldAlert className="size-5 shrink-0 text-red-300" aria-hidden="true" />
            {member.username}&apos;s safety number changed. Verify again before trusting messages.
          </p>
          <Button variant="danger" size="sm" onClick={() => onVerify(member.id)}>
            Compare safety number with {member.username}
          </Button>
        </div>
      ))}
    </div>
  );
}
