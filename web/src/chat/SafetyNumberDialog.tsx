import type { PinStatus } from '@enclave/client';
import type { PublicIdentity } from '@enclave/crypto';
import * as Dialog from '@radix-ui/react-dialog';
import { ShieldAlert, ShieldCheck } from 'lucide-react';
import { useLayoutEffect, useRef, useState } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { DialogCloseButton, dialogPanelClass } from '../components/ui/DialogParts';
import type { PinActions } from './use-key-pins';
import { useSafetyNumber } from './use-safety-number';

/** A contact as the dialog names them. */
export type SafetyNumberContact = { id: string; username: string };

type SafetyNumberDialogProps = {
  /** The member's own public keys, derived locally at sign-in (never the server's copy). */
  self: PublicIdentity;
  /** The contact whose safety number is shown; null keeps the dialog closed. */
  contact: SafetyNumberContact | null;
  /** The contact's listed keys against their pin. */
  status: PinStatus | undefined;
  actions: PinActions;
  onClose: () => void;
};

/**
 * The safety number of the member and one contact, as digits and a QR code, with the member's
 * decision: mark the contact verified, clear the mark, or acknowledge a changed key unverified.
 * Radix Dialog moves focus in and keeps it there; closing returns it to the opening button.
 */
export function SafetyNumberDialog({ self, contact, status, actions, onClose }: SafetyNumberDialogProps) {
  const open = contact !== null;
  const opener = useRef<HTMLElement | null>(null);
  // Opened from several places, none a Dialog.Trigger: the element focused at opening is the one
  // to return to. A layout effect runs before Radix moves focus into the dialog.
  useLayoutEffect(() => {
    if (open) opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  }, [open]);

  return (
    <Dialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/70" />
        <Dialog.Content
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            opener.current?.focus();
          }}
          className={dialogPanelClass}
        >
          {contact ? <SafetyNumberBody self={self} contact={contact} status={status} actions={actions} /> : null}
          <DialogCloseButton />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

type BodyProps = { self: PublicIdentity; contact: SafetyNumberContact; status: PinStatus | undefined; actions: PinActions };

function SafetyNumberBody({ self, contact, status, actions }: BodyProps) {
  const view = useSafetyNumber(self, status?.fingerprint);
  const [busy, setBusy] = useState(false);
  const name = contact.username;

  async function run(action: () => Promise<void>) {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      console.error('could not store the decision on the key pin', error);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <div className="grid gap-1.5 pr-8">
        <Dialog.Title className="text-lg font-semibold">Safety number with {name}</Dialog.Title>
        <Dialog.Description className="text-sm text-muted">
          Compare it with the number {name}&apos;s screen shows for you, in person or over another channel you trust. The numbers match only
          when each of you has the other&apos;s real keys.
        </Dialog.Description>
      </div>
      {status?.changed ? (
        <p
          role="alert"
          className="flex items-start gap-2 rounded-lg border-2 border-red-500 bg-red-950/70 p-3 text-sm font-medium text-red-50"
        >
          <ShieldAlert className="mt-0.5 size-5 shrink-0 text-red-300" aria-hidden="true" />
          {name}&apos;s keys changed since this browser pinned them, so this is a new safety number. Compare it again before you trust{' '}
          {name}&apos;s messages.
        </p>
      ) : null}
      {view.data ? (
        <div className="grid justify-items-center gap-4">
          <p
            aria-label="Safety number"
            data-safety-number={view.data.number}
            className="grid grid-cols-4 gap-x-4 gap-y-1 font-mono text-lg tracking-wider text-foreground"
          >
            {view.data.number.split(' ').map((group, i) => (
              // Two groups may hold the same digits: their place is what tells them apart.
              <span key={i}>{group}</span>
            ))}
          </p>
          <img
            src={view.data.qrCode}
            alt={`QR code of the safety number with ${name}`}
            width={192}
            height={192}
            className="size-40 rounded-md sm:size-48"
          />
        </div>
      ) : (
        <p className="text-sm text-muted">{view.error || !status ? 'Could not compute the safety number.' : 'Computing…'}</p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2">
        {status?.verified ? (
          <Badge tone="success">
            <ShieldCheck aria-hidden="true" /> Verified
          </Badge>
        ) : (
          <Badge>Not verified</Badge>
        )}
        {status ? (
          <div className="flex flex-wrap gap-2">
            {status.changed ? (
              <Button
                variant="outline"
                size="sm"
                disabled={busy}
                onClick={() => void run(() => actions.accept(contact.id, status.fingerprint))}
              >
                Acknowledge without verifying
              </Button>
            ) : null}
            {status.verified ? (
              <Button variant="outline" size="sm" disabled={busy} onClick={() => void run(() => actions.clearVerification(contact.id))}>
                Clear verification
              </Button>
            ) : (
              <Button
                size="sm"
                disabled={busy || !view.data}
                onClick={() => void run(() => actions.verify(contact.id, status.fingerprint))}
              >
                <ShieldCheck aria-hidden="true" /> Mark as verified
              </Button>
            )}
          </div>
        ) : null}
      </div>
      {view.data ? (
        <dl className="grid gap-1 text-xs text-muted">
          <div>
            <dt>Your fingerprint</dt>
            <dd className="font-mono" data-fingerprint="own">
              {view.data.own}
            </dd>
          </div>
          <div>
            <dt>{name}&apos;s fingerprint</dt>
            <dd className="font-mono" data-fingerprint="contact">
              {status?.fingerprint}
            </dd>
          </div>
        </dl>
      ) : null}
    </>
  );
}
