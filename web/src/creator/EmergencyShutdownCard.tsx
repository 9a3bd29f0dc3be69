import type { MonitoredUser } from '@enclave/protocol';
import { Power } from 'lucide-react';
import { useState } from 'react';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { ConfirmDialog } from '../components/ui/ConfirmDialog';
import { plural } from '../lib/format';
import { emergencyShutdown } from '../net/creator-api';
import { useCreatorAction } from './creator-queries';
import { creatorToasts } from './creator-toasts';

/** The emergency shutdown, behind a confirmation (docs/spec.md §5). */
export function EmergencyShutdownCard({ users, active }: { users: MonitoredUser[] | undefined; active: boolean }) {
  const [confirming, setConfirming] = useState(false);
  const shutdown = useCreatorAction({
    run: () => emergencyShutdown(),
    success: (result) => creatorToasts.shutdown(result.banned),
    failure: (error) => creatorToasts.shutdownFailed(error),
  });

  const spared = users?.filter((u) => u.isCreatorAccount) ?? [];
  const targets = users?.filter((u) => !u.isCreatorAccount && !u.isBanned).length;

  return (
    <Card className="border-red-500/50 bg-red-950/20" role="region" aria-labelledby="shutdown-title">
      <div className="flex flex-wrap items-center justify-between gap-4 p-5">
        <div className="grid max-w-3xl gap-1">
          <h2 id="shutdown-title" className="flex items-center gap-2 text-lg font-semibold text-red-200">
            <Power className="size-5" aria-hidden="true" /> Emergency Shutdown
          </h2>
          <p className="text-sm text-red-100/80">
            Bans every member except the accounts marked as yours, ends their sessions and closes their connections with a notice, and puts
            the network in emergency mode (registration closed) until you lift it.
            {spared.length > 0
              ? ` Spared: ${spared.map((u) => u.username).join(', ')}.`
              : ' No account is marked as yours: every member would be banned.'}
          </p>
        </div>
        <Button variant="danger" size="lg" disabled={shutdown.isPending} onClick={() => setConfirming(true)}>
          <Power aria-hidden="true" /> {active ? 'Emergency Shutdown (again)' : 'Emergency Shutdown'}
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title="Shut the network down?"
        description={
          <>
            <p>
              {targets === undefined ? 'Every member' : plural(targets, 'member')} not marked as yours will be banned and disconnected at
              once. Their bans stay after you lift emergency mode, until you unban them.
            </p>
            <p>
              {spared.length > 0
                ? `Spared as your accounts: ${spared.map((u) => u.username).join(', ')}.`
                : 'No account is marked as yours: you will lose access to the chat as well.'}
            </p>
          </>
        }
        confirmLabel="Shut down now"
        busy={shutdown.isPending}
        busyLabel="Working…"
        irreversible
        onCancel={() => setConfirming(false)}
        onConfirm={() => shutdown.mutate(undefined, { onSettled: () => setConfirming(false) })}
      />
    </Card>
  );
}
