import type { GroupView, PinStatus } from '@enclave/client';
import type { PublicUser } from '@enclave/protocol';
import * as ScrollArea from '@radix-ui/react-scroll-area';
import { Ban, Crown, Fingerprint, Hash, Plus, ShieldAlert, ShieldOff, Undo2, Users } from 'lucide-react';
import { useId } from 'react';
import { Button } from '../components/ui/Button';
import { cn } from '../lib/cn';
import { groupTitle } from './groups';
import { UnreadBadge } from './UnreadBadge';
import { isBannable } from './use-moderation';
import { VerifiedMark } from './VerifiedMark';

/** Moderation controls, given only to admins (the server checks every call again). */
export type Moderation = {
  onBan: (user: PublicUser) => void;
  onUnban: (user: PublicUser) => void;
  /** A ban or unban is on its way: the buttons wait. */
  busy: boolean;
};

type UserListProps = {
  selfId: string;
  users: readonly PublicUser[] | undefined;
  loading: boolean;
  /** The open conversation: null for the channel, else a member's id (a DM) or a group's id. */
  selectedId: string | null;
  /** The member's groups; undefined while they load or when they could not be loaded. */
  groups: readonly GroupView[] | undefined;
  groupsFailed: boolean;
  onNewGroup: () => void;
  pins: ReadonlyMap<string, PinStatus>;
  /** Clicking the selected member or group again returns to the channel (null). */
  onSelect: (id: string | null) => void;
  onShowSafetyNumber: (userId: string) => void;
  moderation: Moderation | null;
  /** Unread messages of the channel (null), of the DM with a member or of a group (its id). */
  unreadOf?: (id: string | null) => number;
  /** The desktop sidebar (the specification's 400 px list) or the phone's drawer, which it fills. */
  variant: 'sidebar' | 'drawer';
};

type Presence = 'online' | 'offline' | 'banned';

function presenceOf(user: PublicUser): Presence {
  if (user.isBanned) return 'banned';
  return user.online ? 'online' : 'offline';
}

const presenceLabel: Record<Presence, string> = { online: 'Online', offline: 'Offline', banned: 'Banned' };
const presenceDot: Record<Presence, string> = {
  online: 'bg-emerald-400',
  offline: 'bg-slate-500',
  banned: 'bg-red-500',
};
const presenceOrder: Record<Presence, number> = { online: 0, offline: 1, banned: 2 };

function byPresenceThenName(a: PublicUser, b: PublicUser): number {
  return presenceOrder[presenceOf(a)] - presenceOrder[presenceOf(b)] || a.username.localeCompare(b.username);
}

function isAdmin(user: PublicUser): boolean {
  return user.role === 'admin' || user.isCreatorAccount;
}

export function UserList({
  selfId,
  users,
  loading,
  selectedId,
  groups,
  groupsFailed,
  onNewGroup,
  pins,
  onSelect,
  onShowSafetyNumber,
  moderation,
  variant,
  unreadOf = () => 0,
}: UserListProps) {
  const others = (users ?? []).filter((u) => u.id !== selfId).sort(byPresenceThenName);
  const self = users?.find((u) => u.id === selfId);
  const onlineCount = (users ?? []).filter((u) => u.online && !u.isBanned).length;

  return (
    <aside
      aria-label="Members"
      className={cn(
        'flex-col',
        variant === 'sidebar' ? 'hidden self-start rounded-xl border border-border bg-surface md:flex' : 'flex min-h-0 flex-1',
      )}
    >
      <div className="border-b border-border p-3">
        <button
          type="button"
          aria-pressed={selectedId === null}
          onClick={() => onSelect(null)}
          className={cn(
            'flex w-full items-center gap-2 rounded-md px-2 py-2 text-left text-sm font-medium',
            selectedId === null ? 'bg-accent/15 text-accent' : 'text-foreground hover:bg-surface-raised',
          )}
        >
          <Hash className="size-4" aria-hidden="true" /> General Channel
          <UnreadBadge count={unreadOf(null)} />
        </button>
      </div>
      <GroupList
        groups={groups}
        failed={groupsFailed}
        selectedId={selectedId}
        unreadOf={unreadOf}
        onSelect={(id) => onSelect(selectedId === id ? null : id)}
        onNewGroup={onNewGroup}
      />
      <div className="flex items-baseline justify-between px-4 pb-1 pt-3">
        <h2 className="text-xs font-semibold uppercase tracking-wider text-muted">Members</h2>
        <span className="text-xs text-muted">{onlineCount} online</span>
      </div>
      <ScrollArea.Root
        type="hover"
        scrollHideDelay={600}
        className={cn('overflow-hidden', variant === 'sidebar' ? 'h-[400px]' : 'min-h-0 flex-1')}
      >
        <ScrollArea.Viewport className="size-full px-2 pb-2">
          {loading ? <p className="px-2 py-3 text-sm text-muted">Loading members…</p> : null}
          {self ? <SelfEntry user={self} /> : null}
          <ul className="grid gap-0.5">
            {others.map((user) => (
              <li key={user.id} className="flex items-center gap-1">
                <MemberButton
                  user={user}
                  selected={selectedId === user.id}
                  pin={pins.get(user.id)}
                  unread={unreadOf(user.id)}
                  onClick={() => onSelect(selectedId === user.id ? null : user.id)}
                />
                {pins.has(user.id) ? <SafetyNumberButton user={user} onClick={() => onShowSafetyNumber(user.id)} /> : null}
                {moderation ? <ModerationButton user={user} selfId={selfId} moderation={moderation} /> : null}
              </li>
            ))}
          </ul>
          {!loading && others.length === 0 ? <p className="px-2 py-3 text-sm text-muted">No other members yet.</p> : null}
        </ScrollArea.Viewport>
        <ScrollArea.Scrollbar orientation="vertical" className="flex w-2 touch-none select-none p-0.5">
          <ScrollArea.Thumb className="relative flex-1 rounded-full bg-border" />
        </ScrollArea.Scrollbar>
      </ScrollArea.Root>
    </aside>
  );
}

type GroupListProps = {
  groups: readonly GroupView[] | undefined;
  failed: boolean;
  selectedId: string | null;
  unreadOf: (id: string) => number;
  onSelect: (groupId: string) => void;
  onNewGroup: () => void;
};

/** The member's private groups, by the names opened in this browser, and the way to start one. */
function GroupList({ groups, failed, selectedId, unreadOf, onSelect, onNewGroup }: GroupListProps) {
  const headingId = useId();
  return (
    <section aria-labelledby={headingId} className="border-b border-border px-2 pb-2">
      <div className="flex items-center justify-between px-2 pb-1 pt-2">
        <h2 id={headingId} className="text-xs font-semibold uppercase tracking-wider text-muted">
          Groups
        </h2>
        <Button variant="ghost" size="sm" className="h-7 px-2" onClick={onNewGroup}>
          <Plus aria-hidden="true" /> New group
        </Button>
      </div>
      {failed ? <p className="px-2 py-1 text-sm text-muted">Could not load your groups.</p> : null}
      {!groups && !failed ? <p className="px-2 py-1 text-sm text-muted">Loading groups…</p> : null}
      {groups?.length === 0 ? <p className="px-2 py-1 text-sm text-muted">No groups yet.</p> : null}
      {groups?.length ? (
        <ul className="grid max-h-48 gap-0.5 overflow-y-auto">
          {groups.map((group) => {
            const selected = selectedId === group.id;
            return (
              <li key={group.id}>
                <button
                  type="button"
                  aria-pressed={selected}
                  onClick={() => onSelect(group.id)}
                  title={selected ? 'Back to the general channel' : undefined}
                  className={cn(
                    'flex w-full min-w-0 items-center gap-2 rounded-md px-2 py-2 text-left text-sm',
                    selected ? 'bg-accent/15 ring-1 ring-accent/40' : 'hover:bg-surface-raised',
                    group.name === null && 'italic text-muted',
                  )}
                >
                  <Users className="size-4 shrink-0 text-muted" aria-hidden="true" />
                  <span className="truncate font-medium">{groupTitle(group)}</span>
                  <UnreadBadge count={unreadOf(group.id)} />
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

function StatusLine({ user }: { user: PublicUser }) {
  const presence = presenceOf(user);
  return (
    <span className="flex items-center gap-1.5 text-xs text-muted">
      <span className={cn('size-2 rounded-full', presenceDot[presence])} aria-hidden="true" />
      {presenceLabel[presence]}
    </span>
  );
}

function AdminCrown({ user }: { user: PublicUser }) {
  if (!isAdmin(user)) return null;
  return <Crown className="size-3.5 text-amber-400" role="img" aria-label="Admin" />;
}

/** Wiped by the breach policy: their keys are gone and they receive no share of later messages. */
function CompromisedMark({ user }: { user: PublicUser }) {
  if (!user.isCompromised) return null;
  return (
    <span
      className="inline-flex items-center gap-0.5 rounded border border-red-500/40 bg-red-500/10 px-1 text-[0.65rem] font-medium text-red-300"
      data-compromised
    >
      <ShieldOff className="size-3" aria-hidden="true" /> Compromised
    </span>
  );
}

function SelfEntry({ user }: { user: PublicUser }) {
  return (
    <div className="mb-1 flex items-center justify-between rounded-md px-2 py-2">
      <span className="flex items-center gap-1.5 text-sm">
        <span className="font-medium">{user.username}</span>
        <span className="text-muted">(you)</span>
        <AdminCrown user={user} />
      </span>
      <StatusLine user={user} />
    </div>
  );
}

type MemberButtonProps = { user: PublicUser; selected: boolean; pin: PinStatus | undefined; unread: number; onClick: () => void };

function MemberButton({ user, selected, pin, unread, onClick }: MemberButtonProps) {
  return (
    <button
      type="button"
      aria-pressed={selected}
      onClick={onClick}
      title={selected ? 'Back to the general channel' : `Direct message ${user.username}`}
      className={cn(
        'flex min-w-0 flex-1 items-center justify-between gap-2 rounded-md px-2 py-2 text-left',
        // A banned member is struck through, not dimmed: dimmed, their status line fell below 4.5:1.
        selected ? 'bg-accent/15 ring-1 ring-accent/40' : 'hover:bg-surface-raised',
      )}
    >
      <span className="flex min-w-0 items-center gap-1.5 text-sm">
        <span className={cn('truncate font-medium', user.isBanned && 'line-through')}>{user.username}</span>
        <AdminCrown user={user} />
        <CompromisedMark user={user} />
        {pin?.verified ? <VerifiedMark /> : null}
        {pin?.changed ? <ShieldAlert className="size-3.5 text-red-400" role="img" aria-label="Key changed" /> : null}
      </span>
      <span className="flex shrink-0 items-center gap-2">
        <UnreadBadge count={unread} />
        <StatusLine user={user} />
      </span>
    </button>
  );
}

/**
 * Opens the safety number. Its name leaves out the member's (their row gives it, and the title
 * says it), so that the member's name picks out only their entry.
 */
function SafetyNumberButton({ user, onClick }: { user: PublicUser; onClick: () => void }) {
  return (
    <Button
      variant="ghost"
      size="icon"
      className="size-8 shrink-0"
      aria-label="Safety number"
      title={`Safety number with ${user.username}`}
      onClick={onClick}
    >
      <Fingerprint aria-hidden="true" />
    </Button>
  );
}

/** Ban for members an admin may ban, Unban for banned ones, nothing for staff. */
function ModerationButton({ user, selfId, moderation }: { user: PublicUser; selfId: string; moderation: Moderation }) {
  if (!user.isBanned && !isBannable(user, selfId)) return null;
  const action = user.isBanned
    ? { name: `Unban ${user.username}`, tone: 'text-emerald-300 hover:text-emerald-200', Icon: Undo2, run: moderation.onUnban }
    : { name: `Ban ${user.username}`, tone: 'text-red-400 hover:text-red-300', Icon: Ban, run: moderation.onBan };
  return (
    <Button
      variant="ghost"
      size="icon"
      className={cn('size-8 shrink-0', action.tone)}
      aria-label={action.name}
      title={action.name}
      disabled={moderation.busy}
      onClick={() => action.run(user)}
    >
      <action.Icon aria-hidden="true" />
    </Button>
  );
}
