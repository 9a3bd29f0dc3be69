import type { GroupView } from '@enclave/client';
import type { GroupMember, PublicUser } from '@enclave/protocol';
import * as Dialog from '@radix-ui/react-dialog';
import { Crown, LogOut, UserMinus, UserPlus, Users } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../components/ui/Button';
import { DialogCloseButton, dialogPanelClass } from '../components/ui/DialogParts';
import { plural } from '../lib/format';
import { failureText, groupTitle } from './groups';
import { MemberPicker } from './MemberPicker';

export type GroupActions = {
  add: (memberIds: readonly string[]) => Promise<void>;
  remove: (member: GroupMember) => Promise<void>;
  leave: () => Promise<void>;
};

type GroupMembersDialogProps = { group: GroupView; selfId: string; users: readonly PublicUser[]; actions: GroupActions };

/** What the panel shows: the members, the picker of new ones, or a question before a removal or leaving. */
type Step = { kind: 'list' } | { kind: 'add' } | { kind: 'remove'; member: GroupMember } | { kind: 'leave' };

/**
 * The group's members, with "admin" by its admins; adding members, removing them (the group's
 * admins only: the server refuses anyone else) and leaving, each asked first.
 */
export function GroupMembersDialog({ group, selfId, users, actions }: GroupMembersDialogProps) {
  const [open, setOpen] = useState(false);
  const [step, setStep] = useState<Step>({ kind: 'list' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(new Set());
  const isAdmin = group.members.some((m) => m.id === selfId && m.isAdmin);
  const title = groupTitle(group);

  function go(next: Step) {
    setStep(next);
    setError(null);
    setChosen(new Set());
  }

  async function run(action: () => Promise<void>, failure: string, after: () => void) {
    setBusy(true);
    setError(null);
    try {
      await action();
      after();
    } catch (caught) {
      console.error(failure, caught);
      setError(failureText(caught, failure));
    } finally {
      setBusy(false);
    }
  }

  const errorLine = error ? (
    <p role="alert" className="text-sm text-danger">
      {error}
    </p>
  ) : null;

  return (
    <Dialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) go({ kind: 'list' });
      }}
    >
      <Dialog.Trigger asChild>
        <Button variant="outline" size="sm">
          <Users aria-hidden="true" /> Group members
        </Button>
      </Dialog.Trigger>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/70" />
        <Dialog.Content className={dialogPanelClass}>
          <div className="grid gap-1.5 pr-8">
            <Dialog.Title className="text-lg font-semibold wrap-anywhere">{title}</Dialog.Title>
            <Dialog.Description className="text-sm text-muted">{plural(group.members.length, 'member')}</Dialog.Description>
          </div>
          {step.kind === 'list' ? (
            <>
              <ul aria-label="Group members" className="grid max-h-72 gap-0.5 overflow-y-auto">
                {group.members.map((member) => (
                  <li key={member.id} className="flex items-center justify-between gap-2 rounded-md px-2 py-1.5">
                    <span className="flex min-w-0 items-center gap-1.5 text-sm">
                      <span className="truncate font-medium">{member.username}</span>
                      {member.id === selfId ? <span className="text-muted">(you)</span> : null}
                      {member.isAdmin ? (
                        <span className="inline-flex items-center gap-0.5 text-xs text-amber-300">
                          <Crown className="size-3.5" aria-hidden="true" /> admin
                        </span>
                      ) : null}
                    </span>
                    {isAdmin && member.id !== selfId ? (
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-label={`Remove ${member.username}`}
                        onClick={() => go({ kind: 'remove', member })}
                      >
                        <UserMinus aria-hidden="true" /> Remove
                      </Button>
                    ) : null}
                  </li>
                ))}
              </ul>
              <div className="flex flex-wrap justify-between gap-2">
                <Button variant="outline" onClick={() => go({ kind: 'leave' })}>
                  <LogOut aria-hidden="true" /> Leave group
                </Button>
                <Button
                  onClick={() => go({ kind: 'add' })}
                  disabled={group.name === null}
                  title={group.name === null ? 'This group’s name could not be opened here' : undefined}
                >
                  <UserPlus aria-hidden="true" /> Add members
                </Button>
              </div>
            </>
          ) : null}
          {step.kind === 'add' ? (
            <form
              className="grid gap-4"
              onSubmit={(e) => {
                e.preventDefault();
                if (chosen.size === 0) setError('Choose at least one member');
                else
                  void run(
                    () => actions.add([...chosen]),
                    'Could not add the members',
                    () => go({ kind: 'list' }),
                  );
              }}
            >
              <MemberPicker
                users={users}
                selfId={selfId}
                exclude={group.members.map((m) => m.id)}
                selected={chosen}
                onChange={setChosen}
                disabled={busy}
              />
              {errorLine}
              <div className="flex justify-end gap-2">
                <Button variant="outline" disabled={busy} onClick={() => go({ kind: 'list' })}>
                  Back
                </Button>
                <Button type="submit" disabled={busy}>
                  {busy ? 'Adding…' : 'Add to group'}
                </Button>
              </div>
            </form>
          ) : null}
          {step.kind === 'remove' || step.kind === 'leave' ? (
            <div className="grid gap-4">
              <p className="text-sm">
                {step.kind === 'remove'
                  ? `Remove ${step.member.username} from ${title}? They keep what they already received but cannot read later messages.`
                  : `Leave ${title}? You cannot read its later messages unless a member adds you again.`}
              </p>
              {errorLine}
              <div className="flex justify-end gap-2">
                <Button variant="outline" disabled={busy} onClick={() => go({ kind: 'list' })}>
                  Cancel
                </Button>
                <Button
                  variant="danger"
                  disabled={busy}
                  onClick={() =>
                    step.kind === 'remove'
                      ? void run(
                          () => actions.remove(step.member),
                          'Could not remove the member',
                          () => go({ kind: 'list' }),
                        )
                      : void run(actions.leave, 'Could not leave the group', () => setOpen(false))
                  }
                >
                  {step.kind === 'remove' ? 'Remove member' : 'Leave group'}
                </Button>
              </div>
            </div>
          ) : null}
          <DialogCloseButton />
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
