import { Flame } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../components/ui/Button';
import { Card, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { revokeAllSessions } from '../net/security-api';
import { useRealtimeSocket } from '../realtime/realtime-context';
import { leaveNotice } from '../realtime/session-notice';
import { wipeBrowser } from '../security/wipe';
import { wipeTexts } from './security-texts';

/**
 * The member's emergency wipe: every session ends on the server and this browser forgets
 * everything of Enclave's, pins included; then a fresh load of /. The socket is stopped first, so
 * the end of this very session is not mistaken for one imposed from elsewhere.
 */
function useEmergencyWipe() {
  const socket = useRealtimeSocket();
  return async () => {
    socket?.stop();
    const [revoked] = await Promise.allSettled([revokeAllSessions(), wipeBrowser({ pins: 'delete' })]);
    if (revoked.status === 'rejected') console.error('the server did not end the sessions', revoked.reason);
    const notice = revoked.status === 'fulfilled' ? wipeTexts.done : wipeTexts.serverFailed;
    // Written after the wipe, read once by the next page.
    leaveNotice(notice.title, notice.description);
    window.location.assign('/');
  };
}

export function EmergencyWipeCard() {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const wipe = useEmergencyWipe();

  return (
    <Card className="border-red-500/40">
      <CardHeader className="flex-row flex-wrap items-start justify-between gap-3 pb-6">
        <div className="grid gap-1.5">
          <CardTitle className="flex items-center gap-2 text-red-300">
            <Flame className="size-5" aria-hidden="true" /> Emergency wipe
          </CardTitle>
          <CardDescription>Ends every session of your account and erases everything Enclave keeps in this browser.</CardDescription>
        </div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          <Flame aria-hidden="true" /> {wipeTexts.button}
        </Button>
      </CardHeader>
      <ConfirmDialog
        open={open}
        irreversible
        title={wipeTexts.title}
        description={
          <ul className="list-disc space-y-1 pl-5">
            {wipeTexts.points.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        }
        confirmLabel={wipeTexts.confirm}
        busy={busy}
        busyLabel={wipeTexts.busy}
        onCancel={() => setOpen(false)}
        onConfirm={() => {
          setBusy(true);
          void wipe();
        }}
      />
    </Card>
  );
}
