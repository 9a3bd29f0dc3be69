import * as Dialog from '@radix-ui/react-dialog';
import { Users } from 'lucide-react';
import { useEffect, type ReactNode } from 'react';
import { Button } from '../components/ui/Button';
import { DialogCloseButton } from '../components/ui/DialogParts';
import { UnreadBadge } from './UnreadBadge';

type MembersDrawerProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The member list, as the desktop sidebar shows it. */
  children: ReactNode;
  /** Unread messages in all conversations, shown on the trigger: the list is out of sight on phones. */
  unread?: number;
};

/**
 * On phones the member list would push the conversation below the fold, so it lives in a drawer
 * opened from the conversation header; Radix keeps focus inside while it is open and returns it to
 * the trigger. From the md breakpoint up the sidebar shows the list and the trigger is hidden.
 */
export function MembersDrawer({ open, onOpenChange, children, unread = 0 }: MembersDrawerProps) {
  // A phone turned into a wide screen shows the sidebar: a drawer left open there would be
  // invisible (md:hidden) yet still hold focus and block the page, so it closes.
  useEffect(() => {
    if (!open) return;
    const wide = window.matchMedia('(min-width: 48rem)');
    const close = () => {
      if (wide.matches) onOpenChange(false);
    };
    close();
    wide.addEventListener('change', close);
    return () => wide.removeEventListener('change', close);
  }, [open, onOpenChange]);

  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger asChild>
        <Button variant="outline" size="sm" className="md:hidden">
          <Users aria-hidden="true" /> Members
          <UnreadBadge count={unread} />
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/70 md:hidden" />
        <Dialog.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-50 flex h-dvh w-[min(20rem,85vw)] flex-col gap-2 border-r border-border bg-surface p-2 shadow-xl md:hidden"
        >
          <div className="flex items-center justify-between gap-2 px-2 pt-1">
            <Dialog.Title className="text-base font-semibold">Conversations</Dialog.Title>
            <DialogCloseButton className="" />
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
