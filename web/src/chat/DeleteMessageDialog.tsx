import type { Message } from '@enclave/protocol';
import { useState } from 'react';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { toast } from '../components/ui/toast-store';
import { deleteMessage } from '../net/http';

type DeleteMessageDialogProps = {
  /** The member's own message to delete; null keeps the dialog closed. */
  message: Message | null;
  /** The server erased it (the frame that tells every member comes too; the store takes it once). */
  onDeleted: (message: Message) => void;
  onClose: () => void;
};

/** Asks before deleting one's own message for everyone: the server erases it and every screen drops it. */
export function DeleteMessageDialog({ message, onDeleted, onClose }: DeleteMessageDialogProps) {
  const [busy, setBusy] = useState(false);
  async function confirm() {
    if (!message) return;
    setBusy(true);
    try {
      await deleteMessage(message.id);
      onDeleted(message);
    } catch (error) {
      console.error('could not delete the message', error);
      toast({ title: 'Not deleted', description: error instanceof Error ? error.message : 'Try again', tone: 'destructive' });
    } finally {
      setBusy(false);
      onClose();
    }
  }
  return (
    <ConfirmDialog
      open={message !== null}
      title="Delete for everyone?"
      description="The message is erased from the server and disappears from every member's screen. A note that it was deleted stays in its place."
      confirmLabel="Delete for everyone"
      busyLabel="Deleting…"
      busy={busy}
      irreversible
      onConfirm={() => void confirm()}
      onCancel={onClose}
    />
  );
}
