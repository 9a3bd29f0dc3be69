import type { SessionInfo } from '@enclave/protocol';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { LogOut, MonitorSmartphone } from 'lucide-react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { toast } from '../components/ui/toast-store';
import { formatDateTime } from '../lib/format';
import { revokeOtherSessions } from '../net/security-api';
import { emptyTexts, sessionTexts } from './security-texts';
import { securityKeys, useSessions } from './use-security-data';
import { describeUserAgent } from './user-agent';

function SessionRow({ session }: { session: SessionInfo }) {
  const name = describeUserAgent(session.userAgent) ?? sessionTexts.unknownBrowser;
  return (
    <li aria-label={session.current ? `${name} (${sessionTexts.current})` : name} className="grid min-w-0 gap-1 rounded-lg border border-border bg-background/40 p-3 text-sm">
      <span className="flex items-center justify-between gap-2">
        <span className="font-medium">{name}</span>
        {session.current ? <Badge tone="accent">{sessionTexts.current}</Badge> : null}
      </span>
      {session.userAgent ? (
        <span className="truncate text-xs text-muted" title={session.userAgent}>
          {session.userAgent}
        </span>
      ) : null}
      <span className="text-xs text-muted">
        Signed in {formatDateTime(session.createdAt)} · expires {formatDateTime(session.expiresAt)}
      </span>
    </li>
  );
}

/** The member's active sessions, this one marked, and ending all the others. */
export function SessionsCard() {
  const queryClient = useQueryClient();
  const sessions = useSessions();
  const others = sessions.data?.filter((s) => !s.current).length ?? 0;
  const signOut = useMutation({
    mutationFn: revokeOtherSessions,
    onSuccess: (n) => toast(sessionTexts.ended(n)),
    onError: () => toast(sessionTexts.failed),
    onSettled: () => queryClient.invalidateQueries({ queryKey: securityKeys.sessions }),
  });

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3">
        <div className="grid gap-1.5">
          <CardTitle className="flex items-center gap-2">
            <MonitorSmartphone className="size-5 text-accent" aria-hidden="true" /> Active sessions
          </CardTitle>
          <CardDescription>Every browser signed in to your account now.</CardDescription>
        </div>
        <Button variant="outline" size="sm" disabled={others === 0 || signOut.isPending} onClick={() => signOut.mutate()}>
          <LogOut aria-hidden="true" /> {sessionTexts.signOutOthers}
        </Button>
      </CardHeader>
      <CardContent>
        {sessions.data === undefined ? (
          <p className="text-sm text-muted">{sessions.error ? emptyTexts.loadFailed : 'Loading…'}</p>
        ) : (
          <>
            <ul aria-label="Active sessions" className="grid gap-2 md:grid-cols-2">
              {sessions.data.map((s) => (
                <SessionRow key={s.id} session={s} />
              ))}
            </ul>
            {others === 0 ? <p className="mt-3 text-xs text-muted">{sessionTexts.onlyThis}</p> : null}
          </>
        )}
      </CardContent>
    </Card>
  );
}
