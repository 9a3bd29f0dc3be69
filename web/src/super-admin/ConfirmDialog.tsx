import { AlertTriangle } from 'lucide-react';
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Button } from '../components/ui/Button';

type ConfirmDialogProps = {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
};

/**
 * Asks before an action that cannot be taken back (specification section 5: revoke-all and the
 * emergency shutdown). A native modal <dialog>: focus is trapped, Escape cancels, the page behind is inert.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busy = false, onConfirm, onCancel }: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={bodyId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-xl border border-red-500/50 bg-surface p-0 text-foreground shadow-2xl shadow-black/60 backdrop:bg-black/70"
    >
      {open ? (
        <div className="grid gap-4 p-6">
          <div className="flex items-start gap-3">
            <span className="grid size-10 shrink-0 place-items-center rounded-full bg-red-500/15">
              <AlertTriangle className="size-5 text-red-400" aria-hidden="true" />
            </span>
            <div className="grid gap-2">
              <h2 id={titleId} className="text-lg font-semibold">
                {title}
              </h2>
              <div id={bodyId} className="grid gap-2 text-sm text-muted">
                {children}
              </div>
            </div>
          </div>
          <div className="flex justify-end gap-2">
            <Button variant="outline" onClick={onCancel} disabled={busy} autoFocus>
              Cancel
            </Button>
            <Button variant="danger" onClick={onConfirm} disabled={busy}>
              {busy ? 'Working…' : confirmLabel}
            </Button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
