import type { MonitoredUser } from '@enclave/protocol';
import { Crown, Lock, ShieldAlert, ShieldCheck, UserCheck, Users } from 'lucide-react';
import { useId } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { banUser, setCreatorAccount, setRole, unbanUser, unbanUsers, unlockUser } from '../net/creator-api';
import { cn } from '../lib/cn';
import { useCreatorAction, useMonitoredUsers } from './creator-queries';
import { creatorToasts } from './creator-toasts';
import { formatDateTime, formatRelative, shortKey } from '../lib/format';
import { EmptyState, PanelError, PanelLoading } from './panels/PanelCard';
import { TableFrame } from '../components/ui/TableFrame';

/** docs/spec.md §7: the creator's ban reason. */
export const CREATOR_BAN_REASON = 'Banned by network creator';

/** The monitored member list: presence, role, last activity, redeemed key, bans; and what the creator does to them. */
export function MembersCard() {
  const titleId = useId();
  const users = useMonitoredUsers();

  const ban = useCreatorAction({
    run: (u: MonitoredUser) => banUser(u.id, CREATOR_BAN_REASON),
    success: (_r, u) => creatorToasts.userBanned(u.username),
    failure: (error) => creatorToasts.banFailed(error),
  });
  const unban = useCreatorAction({
    run: (u: MonitoredUser) => unbanUser(u.id),
    success: (_r, u) => creatorToasts.userUnbanned(u.username),
    failure: (error) => creatorToasts.unbanFailed(error),
  });
  const unlock = useCreatorAction({
    run: (u: MonitoredUser) => unlockUser(u.id),
    success: (_r, u) => creatorToasts.userUnlocked(u.username),
    failure: (error) => creatorToasts.unlockFailed(error),
  });
  const unbanAll = useUnbanAll();
  const role = useCreatorAction({
    run: ({ user, to }: { user: MonitoredUser; to: 'member' | 'admin' }) => setRole(user.id, to),
    success: (_r, { user, to }) => creatorToasts.roleChanged(user.username, to),
    failure: (error) => creatorToasts.actionFailed(error),
  });
  const mark = useCreatorAction({
    run: ({ user, mine }: { user: MonitoredUser; mine: boolean }) => setCreatorAccount(user.id, mine),
    success: (_r, { user, mine }) => creatorToasts.creatorAccount(user.username, mine),
    failure: (error) => creatorToasts.actionFailed(error),
  });

  const list = users.data ?? [];
  const banned = list.filter((u) => u.isBanned);
  const online = list.filter((u) => u.online && !u.isBanned).length;
  const busy = ban.isPending || unban.isPending || unlock.isPending || unbanAll.isPending || role.isPending || mark.isPending;

  return (
    <Card role="region" aria-labelledby={titleId}>
      <div className="flex flex-wrap items-end justify-between gap-4 border-b border-border p-5">
        <div className="grid gap-1">
          <h2 id={titleId} className="flex items-center gap-2 text-lg font-semibold tracking-tight">
            <Users className="size-5 text-accent" aria-hidden="true" /> Members
          </h2>
          <p className="text-sm text-muted">
            {users.data
              ? `${list.length} members · ${online} online · ${banned.length} banned. Accounts marked as yours are spared by an emergency shutdown.`
              : 'Every member, as the server sees them.'}
          </p>
        </div>
        <Button variant="secondary" disabled={banned.length === 0 || busy} onClick={() => unbanAll.mutate(banned.map((u) => u.id))}>
          <UserCheck aria-hidden="true" /> Unban all banned ({banned.length})
        </Button>
      </div>
      <div className="p-5">
        {users.isPending ? (
          <PanelLoading what="members" />
        ) : users.isError ? (
          <PanelError error={users.error} what="members" onRetry={() => void users.refetch()} />
        ) : list.length === 0 ? (
          <EmptyState title="No members yet">Members appear here once they redeem an access key.</EmptyState>
        ) : (
          <TableFrame className="rounded-lg border border-border">
            <table className="w-full text-sm" aria-label="Members">
              <thead className="bg-surface-raised text-xs text-muted">
                <tr>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Member
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Status
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Role
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Last activity
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Access key
                  </th>
                  <th scope="col" className="px-3 py-2 text-left font-medium">
                    Ban reason
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    Actions
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((u) => (
                  <tr key={u.id} data-member={u.username} className={cn('border-t border-border', u.isBanned && 'bg-red-950/20')}>
                    <td className="px-3 py-2">
                      <div className="flex flex-wrap items-center gap-1.5">
                        <span className="font-medium">{u.username}</span>
                        {u.isCreatorAccount ? (
                          <Badge tone="warning" data-creator-account>
                            <Crown aria-hidden="true" /> creator&apos;s account
                          </Badge>
                        ) : null}
                      </div>
                      <p className="text-xs text-muted" title={formatDateTime(u.joinedAt)}>
                        joined {formatRelative(u.joinedAt)}
                      </p>
                    </td>
                    <td className="px-3 py-2" data-col="status">
                      <MemberStatus user={u} />
                    </td>
                    <td className="px-3 py-2" data-col="role">
                      {u.role === 'admin' ? (
                        <Badge tone="accent">
                          <ShieldCheck aria-hidden="true" /> admin
                        </Badge>
                      ) : (
                        <span className="text-muted">member</span>
                      )}
                    </td>
                    <td className="whitespace-nowrap px-3 py-2 text-muted" title={formatDateTime(u.lastActivity)}>
                      {formatRelative(u.lastActivity)}
                    </td>
                    <td className="px-3 py-2">
                      {u.inviteKey ? (
                        <span className="font-mono text-xs" title={u.inviteKey}>
                          {shortKey(u.inviteKey)}
                        </span>
                      ) : (
                        <span className="text-muted">—</span>
                      )}
                      {u.purchaseId ? <p className="text-xs text-muted">{u.purchaseId}</p> : null}
                    </td>
                    <td className="px-3 py-2 text-red-200/90" data-col="ban-reason">
                      {u.bannedReason ?? <span className="text-muted">—</span>}
                    </td>
                    <td className="px-3 py-2">
                      <div className="flex justify-end gap-1.5">
                        {/* A wiped account has no keys left to unlock: the server refuses it (409). */}
                        {u.isLocked && !u.isCompromised ? (
                          <Button
                            size="sm"
                            variant="secondary"
                            disabled={busy}
                            aria-label={`Unlock ${u.username}`}
                            onClick={() => unlock.mutate(u)}
                          >
                            <Lock aria-hidden="true" /> Unlock
                          </Button>
                        ) : null}
                        {u.isBanned ? (
                          <Button
                            size="sm"
                            variant="secondary"
                            disabled={busy}
                            aria-label={`Unban ${u.username}`}
                            onClick={() => unban.mutate(u)}
                          >
                            Unban
                          </Button>
                        ) : (
                          <Button
                            size="sm"
                            variant="outline"
                            className="border-red-500/50 text-red-300 hover:bg-red-500/15"
                            disabled={busy}
                            aria-label={`Ban ${u.username}`}
                            onClick={() => ban.mutate(u)}
                          >
                            Ban
                          </Button>
                        )}
                        <Button
                          size="sm"
                          variant="outline"
                          disabled={busy}
                          aria-label={u.role === 'admin' ? `Demote ${u.username} to member` : `Promote ${u.username} to admin`}
                          onClick={() => role.mutate({ user: u, to: u.role === 'admin' ? 'member' : 'admin' })}
                        >
                          {u.role === 'admin' ? 'Demote' : 'Make admin'}
                        </Button>
                        <Button
                          size="sm"
                          variant="ghost"
                          disabled={busy}
                          aria-label={
                            u.isCreatorAccount
                              ? `Unmark ${u.username} as the creator's account`
                              : `Mark ${u.username} as the creator's account`
                          }
                          onClick={() => mark.mutate({ user: u, mine: !u.isCreatorAccount })}
                        >
                          <Crown aria-hidden="true" /> {u.isCreatorAccount ? 'Unmark mine' : 'Mark as mine'}
                        </Button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      </div>
    </Card>
  );
}

/** Presence or ban, and the breach policy's marks: locked (no sign-in until unlocked) and compromised (wiped). */
function MemberStatus({ user }: { user: MonitoredUser }) {
  const state = user.isBanned ? 'banned' : user.online ? 'online' : 'offline';
  const dot = { banned: 'bg-red-500', online: 'bg-emerald-400', offline: 'bg-slate-500' }[state];
  const label = { banned: 'Banned', online: 'Online', offline: 'Offline' }[state];
  return (
    <div className="flex flex-wrap items-center gap-1.5">
      <span className="inline-flex items-center gap-1.5" data-member-state={state}>
        <span className={cn('size-2 rounded-full', dot)} aria-hidden="true" />
        {label}
      </span>
      {user.isLocked ? (
        <Badge tone="warning" data-member-locked title="Locked by the breach policy: cannot sign in until unlocked">
          <Lock aria-hidden="true" /> Locked
        </Badge>
      ) : null}
      {user.isCompromised ? (
        <Badge
          tone="danger"
          data-member-compromised
          title="Wiped by the breach policy: its keys are gone and it cannot be restored or unlocked; the person can join again with a new invite key"
        >
          <ShieldAlert aria-hidden="true" /> Compromised
        </Badge>
      ) : null}
    </div>
  );
}

/** "Unban all banned": one call for every banned member. */
function useUnbanAll() {
  return useCreatorAction({
    run: (ids: string[]) => unbanUsers(ids),
    success: (n) => creatorToasts.bulkUnbanned(n),
    failure: (error) => creatorToasts.unbanFailed(error),
  });
}
