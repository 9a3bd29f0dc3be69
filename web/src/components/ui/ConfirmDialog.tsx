import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';
import { Button } from './Button';

type ConfirmDialogProps = {
  open: boolean;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** True while the confirmed action runs: both buttons wait. */
  busy?: boolean;
  tone?: 'danger' | 'primary';
  /** Extra fields (a ban reason, say), inside the dialog's form. */
  children?: ReactNode;
  onConfirm: () => void;
  onCancel: () => void;
};

/**
 * A modal confirmation on the browser's own <dialog>: focus moves into it and stays there, Escape
 * cancels, and the page behind is inert, with no positioning code of our own.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  confirmLabel,
  busy = false,
  tone = 'danger',
  children,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!busy) onConfirm();
  }

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onCancel={(event) => {
        // Escape: the parent owns `open`, so let it close the dialog.
        event.preventDefault();
        if (!busy) onCancel();
      }}
      className="m-auto w-[min(28rem,calc(100vw-2rem))] rounded-xl border border-border bg-surface p-0 text-foreground shadow-2xl shadow-black/60 backdrop:bg-black/70"
    >
      {open ? (
        <form className="grid gap-4 p-6" onSubmit={submit}>
          <h2 id={titleId} className="text-lg font-semibold">
            {title}
          </h2>
          <div id={descriptionId} className="text-sm text-muted">
            {description}
          </div>
          {children}
          <div className="flex justify-end gap-2">
            <Button variant="outline" disabled={busy} onClick={onCancel}>
              Cancel
            </Button>
            <Button type="submit" variant={tone} disabled={busy}>
              {confirmLabel}
            </Button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
