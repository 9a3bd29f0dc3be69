import type { PublicUser } from '@enclave/protocol';
import { useId, useState } from 'react';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { Input, Label } from '../components/ui/Input';
import { DEFAULT_BAN_REASON } from './moderation-texts';

type BanDialogProps = {
  /** The member to ban; null keeps the dialog closed. Render keyed by it, so each ban starts afresh. */
  target: PublicUser | null;
  busy: boolean;
  onConfirm: (user: PublicUser, reason: string) => void;
  onCancel: () => void;
};

/** Asks before a ban, with an optional reason that the banned member is shown. */
export function BanDialog({ target, busy, onConfirm, onCancel }: BanDialogProps) {
  const id = useId();
  const [reason, setReason] = useState('');
  return (
    <ConfirmDialog
      open={target !== null}
      title={target ? `Ban ${target.username}?` : 'Ban member?'}
      description="They are signed out everywhere at once, cannot sign in again and receive no later messages. You can unban them later."
      confirmLabel="Ban member"
      busy={busy}
      onConfirm={() => target && onConfirm(target, reason.trim() || DEFAULT_BAN_REASON)}
      onCancel={onCancel}
    >
      <div className="grid gap-1.5">
        <Label htmlFor={id}>Reason (optional)</Label>
        <Input
          id={id}
          name="reason"
          maxLength={200}
          autoComplete="off"
          placeholder={DEFAULT_BAN_REASON}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
        />
      </div>
    </ConfirmDialog>
  );
}
