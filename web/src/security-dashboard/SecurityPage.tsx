import { Shield } from 'lucide-react';
import { useState } from 'react';
import { type Session } from '../auth/auth-context';
import { MemberOnly } from '../auth/MemberOnly';
import { BackLink, PageHeader, SignedInAs } from '../components/PageHeader';
import { SafetyNumberDialog } from '../chat/SafetyNumberDialog';
import { usePinActions } from '../chat/use-key-pins';
import { useMemberClient } from '../realtime/realtime-context';
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
  // The member's one KeyTrust: a decision here is the chat's too.
  const { trust } = useMemberClient();
  const pinActions = usePinActions(trust, ['security', 'pins', session.user.id]);
  const [safetyNumberOf, setSafetyNumberOf] = useState<string | null>(null);
  // The row as it is now, so the dialog follows a decision the member just made.
  const shown: PinRow | undefined = pins.rows?.find((r) => r.id === safetyNumberOf && r.current !== null);

  return (
    <div className="min-h-screen">
      <PageHeader
        icon={<Shield className="size-5 text-accent" aria-hidden="true" />}
        title="Security"
        actions={
          <>
            <SignedInAs username={session.user.username} />
            <BackLink href="/chat">Back to chat</BackLink>
          </>
        }
      />
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
