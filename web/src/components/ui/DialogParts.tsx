/** What the app's centred dialogs share (Radix Dialog): their panel's look, and the × that closes them. */
import * as Dialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { Button } from './Button';

/** A centred dialog panel: within the viewport at 360 px, scrolling inside when it is taller. */
export const dialogPanelClass =
  'fixed left-1/2 top-1/2 z-50 grid max-h-[calc(100dvh-2rem)] w-[min(30rem,calc(100vw-2rem))] -translate-x-1/2 -translate-y-1/2 gap-4 overflow-y-auto rounded-xl border border-border bg-surface p-6 text-foreground shadow-2xl shadow-black/60';

/** The × that closes the dialog, in the panel's top right corner unless `className` places it. */
export function DialogCloseButton({ className = 'absolute right-3 top-3 size-8' }: { className?: string }) {
  return (
    <Dialog.Close asChild>
      <Button variant="ghost" size="icon" className={className} aria-label="Close">
        <X aria-hidden="true" />
      </Button>
    </Dialog.Close>
  );
}
