import type { GroupView } from '@enclave/client';
import { limits, type PublicUser } from '@enclave/protocol';
import * as Dialog from '@radix-ui/react-dialog';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../components/ui/Button';
import { DialogCloseButton, dialogPanelClass } from '../components/ui/DialogParts';
import { Input, Label } from '../components/ui/Input';
import { failureText, groupNameProblem } from './groups';
import { MemberPicker } from './MemberPicker';

type NewGroupDialogProps = {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  users: readonly PublicUser[];
  selfId: string;
  create: (name: string, memberIds: readonly string[]) => Promise<GroupView>;
  onCreated: (group: GroupView) => void;
};

/** A group's name and its first members; the server's refusal, if any, is shown in the dialog. */
export function NewGroupDialog({ open, onOpenChange, ...form }: NewGroupDialogProps) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/70" />
        <Dialog.Content className={dialogPanelClass}>
          <div className="grid gap-1.5 pr-8">
            <Dialog.Title className="text-lg font-semibold">New group</Dialog.Title>
            <Dialog.Description className="text-sm text-muted">
              Only its members can read the group&apos;s name and messages. You are its admin.
            </Dialog.Description>
          </div>
          {/* Mounted while open only, so each new group starts afresh. */}
          {open ? <NewGroupForm {...form} /> : null}
          <DialogCloseButton />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function NewGroupForm({ users, selfId, create, onCreated }: Omit<NewGroupDialogProps, 'open' | 'onOpenChange'>) {
  const nameId = useId();
  const errorId = useId();
  const [name, setName] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    const problem = groupNameProblem(name) ?? (selected.size === 0 ? 'Choose at least one member' : null);
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onCreated(await create(name.trim(), [...selected]));
    } catch (failure) {
      console.error('could not create the group', failure);
      setError(failureText(failure, 'Could not create the group'));
      setBusy(false);
    }
  }

  return (
    <form className="grid gap-4" onSubmit={(e) => void submit(e)} aria-describedby={error ? errorId : undefined}>
      <div className="grid gap-1.5">
        <Label htmlFor={nameId}>Group name</Label>
        <Input
          id={nameId}
          name="group-name"
          autoComplete="off"
          maxLength={limits.groupNameMaxChars}
          disabled={busy}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <MemberPicker users={users} selfId={selfId} selected={selected} onChange={setSelected} disabled={busy} />
      {error ? (
        <p id={errorId} role="alert" className="text-sm text-danger">
          {error}
        </p>
      ) : null}
      <div className="flex justify-end gap-2">
        <Dialog.Close asChild>
          <Button variant="outline" disabled={busy}>
            Cancel
          </Button>
        </Dialog.Close>
        <Button type="submit" disabled={busy}>
          {busy ? 'Creating…' : 'Create group'}
        </Button>
      </div>
    </form>
  );
}
