import { useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, Shield } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { type Session } from '../auth/auth-context';
import { MemberOnly } from '../auth/MemberOnly';
import { createKeyTrust } from '../chat/chat-services';
import { SafetyNumberDialog } from '../chat/SafetyNumberDialog';
import { usePinActions } from '../chat/use-key-pins';
import { useThreatState } from '../security/threat-state';
import { AlertsCard, CountersCard } from './ActivityCards';
import { EmergencyWipeCard } from './EmergencyWipeCard';
import { ContactsCard, FingerprintCard } from './IdentityCards';
import { SessionsCard } from './SessionsCard';
import { StatusCard } from './StatusCard';
import type { PinRow } from './status-checks';
import { usePinRows } from './use-security-data';
import { useStatusChecks } from './use-status-checks';

/** /security: a signed-in member's own security dashboard; anyone else goes to / (as /chat does). */
export function SecurityPage() {
  return <MemberOnly screen={(session) => <SecurityDashboard session={session} />} />;
}

function SecurityDashboard({ session }: { session: Session }) {
  const threat = useThreatState();
  const pins = usePinRows(session.user.id);
  const checks = useStatusChecks(session, threat, pins.rows);
  const queryClient = useQueryClient();
  const [trust] = useState(() => createKeyTrust(session, queryClient));
  const pinActions = usePinActions(trust, ['security', 'pins', session.user.id]);
  const [safetyNumberOf, setSafetyNumberOf] = useState<string | null>(null);
  // The row as it is now, so the dialog follows a decision the member just made.
  const shown: PinRow | undefined = pins.rows?.find((r) => r.id === safetyNumberOf && r.current !== null);

  return (
    <div className="min-h-screen">
      <header className="border-b border-border bg-surface/80">
        <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3">
          <div className="flex items-center gap-2">
            <Shield className="size-5 text-accent" aria-hidden="true" />
            <h1 className="text-lg font-bold tracking-tight">Security</h1>
          </div>
          <div className="flex items-center gap-3 text-sm">
            <span className="hidden text-muted sm:inline">
              Signed in as <strong className="text-foreground">{session.user.username}</strong>
            </span>
            <Link href="/chat" className="inline-flex items-center gap-1 text-accent hover:underline">
              <ArrowLeft className="size-4" aria-hidden="true" /> Back to chat
            </Link>
          </div>
        </div>
      </header>
      <main className="mx-auto grid max-w-6xl gap-6 p-4">
        <div className="grid gap-6 lg:grid-cols-[1fr_24rem]">
          <StatusCard checks={checks} />
          <div className="grid content-start gap-6">
            <FingerprintCard session={session} />
            <ContactsCard rows={pins.rows} error={pins.error} onShowSafetyNumber={(row) => setSafetyNumberOf(row.id)} />
          </div>
        </div>
        <CountersCard threat={threat} />
        <AlertsCard threat={threat} />
        <SessionsCard />
        <EmergencyWipeCard />
      </main>
      <SafetyNumberDialog
        self={session.publicIdentity}
        contact={shown ? { id: shown.id, username: shown.username } : null}
        status={shown?.current ? { fingerprint: shown.current, changed: shown.changed, verified: shown.verified } : undefined}
        actions={pinActions}
        onClose={() => setSafetyNumberOf(null)}
      />
    </div>
  );
}
