import { AlertTriangle } from 'lucide-react';
import { useEffect, useId, useRef, type FormEvent, type ReactNode } from 'react';
import { cn } from '../../lib/cn';
import { Button } from './Button';

type ConfirmDialogProps = {
  open: boolean;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  /** True while the confirmed action runs: both buttons wait. */
  busy?: boolean;
  /** The confirm button's text while `busy`; the confirm label by default. */
  busyLabel?: string;
  tone?: 'danger' | 'primary';
  /**
   * For an action that cannot be taken back (docs/spec.md §5: revoke-all and the emergency
   * shutdown): a red frame and a warning sign, and focus starts on Cancel.
   */
  irreversible?: boolean;
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
  busyLabel = confirmLabel,
  tone = 'danger',
  irreversible = false,
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

  const heading = (
    <h2 id={titleId} className="text-lg font-semibold">
      {title}
    </h2>
  );
  const body = (
    <div id={descriptionId} className="grid gap-2 text-sm text-muted">
      {description}
    </div>
  );

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
      className={cn(
        'm-auto rounded-xl border bg-surface p-0 text-foreground shadow-2xl shadow-black/60 backdrop:bg-black/70',
        irreversible ? 'w-[min(32rem,calc(100vw-2rem))] border-red-500/50' : 'w-[min(28rem,calc(100vw-2rem))] border-border',
      )}
    >
      {open ? (
        <form className="grid gap-4 p-6" onSubmit={submit}>
          {irreversible ? (
            <div className="flex items-start gap-3">
              <span className="grid size-10 shrink-0 place-items-center rounded-full bg-red-500/15">
                <AlertTriangle className="size-5 text-red-400" aria-hidden="true" />
              </span>
              <div className="grid gap-2">
                {heading}
                {body}
              </div>
            </div>
          ) : (
            <>
              {heading}
              {body}
            </>
          )}
          {children}
          <div className="flex justify-end gap-2">
            <Button variant="outline" disabled={busy} onClick={onCancel} autoFocus={irreversible}>
              Cancel
            </Button>
            <Button type="submit" variant={tone} disabled={busy}>
              {busy ? busyLabel : confirmLabel}
            </Button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
