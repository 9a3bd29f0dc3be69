import type { SessionInfo } from '@enclave/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { LogOut, MonitorSmartphone } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { toast } from '../components/ui/toast-store';
import { formatDateTime, formatRelative } from '../lib/format';
import { revokeOtherSessions, revokeSession } from '../net/security-api';
import { emptyTexts, sessionTexts } from './security-texts';
import { securityKeys, useSessions } from './use-security-data';
import { describeUserAgent } from './user-agent';

const deviceName = (session: SessionInfo) => describeUserAgent(session.userAgent) ?? sessionTexts.unknownBrowser;

function SessionRow({ session, onSignOut }: { session: SessionInfo; onSignOut: () => void }) {
  const name = deviceName(session);
  return (
    <li
      aria-label={session.current ? `${name} (${sessionTexts.current})` : name}
      data-session={session.id}
      className="grid min-w-0 gap-1 rounded-lg border border-border bg-background/40 p-3 text-sm"
    >
      <span className="flex items-center justify-between gap-2">
        <span className="font-medium">{name}</span>
        {session.current ? (
          <Badge tone="accent" className="shrink-0 whitespace-nowrap">
            {sessionTexts.current}
          </Badge>
        ) : (
          <Button variant="outline" size="sm" className="shrink-0" aria-label={`${sessionTexts.signOut} ${name}`} onClick={onSignOut}>
            <LogOut aria-hidden="true" /> {sessionTexts.signOut}
          </Button>
        )}
      </span>
      {session.userAgent ? (
        <span className="truncate text-xs text-muted" title={session.userAgent}>
          {session.userAgent}
        </span>
      ) : null}
      <span className="text-xs text-muted">
        First seen {formatDateTime(session.createdAt)} ·{' '}
        {session.current ? (
          sessionTexts.activeNow
        ) : (
          <span title={formatDateTime(session.lastActiveAt)}>last active {formatRelative(session.lastActiveAt)}</span>
        )}
      </span>
    </li>
  );
}

/** The member's devices (one per sign-in), this one marked; signing out one of the others, or all of them. */
export function SessionsCard() {
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const [confirming, setConfirming] = useState<SessionInfo | null>(null);
  const others = sessions.data?.filter((s) => !s.current).length ?? 0;
  const refresh = () => queryClient.invalidateQueries({ queryKey: securityKeys.sessions });
  const signOutOthers = useMutation({
    mutationFn: revokeOtherSessions,
    onSuccess: (n) => toast(sessionTexts.ended(n)),
    onError: () => toast(sessionTexts.failed),
    onSettled: refresh,
  });
  const signOutOne = useMutation({
    mutationFn: (session: SessionInfo) => revokeSession(session.id),
    onSuccess: (_, session) => toast(sessionTexts.endedOne(deviceName(session))),
    onError: () => toast(sessionTexts.failedOne),
    onSettled: async () => {
      setConfirming(null);
      await refresh();
    },
  });

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle className="flex items-center gap-2">
            <MonitorSmartphone className="size-5 text-accent" aria-hidden="true" /> Your devices
          </CardTitle>
          <CardDescription>Every browser signed in to your account now, one per sign-in.</CardDescription>
        </div>
        <Button variant="outline" size="sm" disabled={others === 0 || signOutOthers.isPending} onClick={() => signOutOthers.mutate()}>
          <LogOut aria-hidden="true" /> {sessionTexts.signOutOthers}
        </Button>
      </CardHeader>
      <CardContent>
        {sessions.data === undefined ? (
          <p className="text-sm text-muted">{sessions.error ? emptyTexts.loadFailed : 'Loading…'}</p>
        ) : (
          <>
            <ul aria-label="Signed-in devices" className="grid gap-2 md:grid-cols-2">
              {/* This device first, then the others newest first (the server's order; the sort is stable). */}
              {[...sessions.data]
                .sort((a, b) => Number(b.current) - Number(a.current))
                .map((s) => (
                  <SessionRow key={s.id} session={s} onSignOut={() => setConfirming(s)} />
                ))}
            </ul>
            {others === 0 ? <p className="mt-3 text-xs text-muted">{sessionTexts.onlyThis}</p> : null}
          </>
        )}
      </CardContent>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming ? sessionTexts.confirmTitle(deviceName(confirming)) : ''}
        description={
          <>
            <p>{sessionTexts.confirmBody}</p>
            {confirming ? (
              <p>
                First seen {formatDateTime(confirming.createdAt)}, last active {formatRelative(confirming.lastActiveAt)}.
              </p>
            ) : null}
          </>
        }
        confirmLabel={sessionTexts.confirm}
        busy={signOutOne.isPending}
        busyLabel={sessionTexts.busy}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && signOutOne.mutate(confirming)}
      />
    </Card>
  );
}
