import { useQueryClient } from '@tanstack/react-query';
import { KeyRound, RefreshCw } from 'lucide-react';
import { Link } from 'wouter';
import { PageHeader, SignedInAs } from '../components/PageHeader';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { AvailableKeysList } from './AvailableKeysList';
import { ExportKeysForm } from './ExportKeysForm';
import { GenerateKeysCard } from './GenerateKeysCard';
import { KeyStatsCards } from './KeyStatsCards';
import { MonetizationOverview } from './MonetizationOverview';
import { PrivateGroupsCard } from './PrivateGroupsCard';
import { refreshKeys, useKeyStats } from './use-admin-keys';

/** The key management panel itself; only rendered for an admin or the creator. */
export function AdminPanel({ signedInAs, viaMasterKey }: { signedInAs: string; viaMasterKey: boolean }) {
  const queryClient = useQueryClient();
  const stats = useKeyStats();

  return (
    <div className="min-h-screen">
      <PageHeader
        icon={<KeyRound className="size-5 text-accent" aria-hidden="true" />}
        title="Admin Panel · Key Management"
        actions={
          <>
            <SignedInAs username={signedInAs} />
            <Badge tone="warning">{viaMasterKey ? 'Creator' : 'Admin'}</Badge>
            <Button variant="outline" size="sm" onClick={() => void refreshKeys(queryClient)}>
              <RefreshCw aria-hidden="true" /> Refresh
            </Button>
            {viaMasterKey ? (
              <Link href="/super-admin" className="text-accent hover:underline">
                Creator console
              </Link>
            ) : (
              <Link href="/chat" className="text-accent hover:underline">
                Back to chat
              </Link>
            )}
          </>
        }
      />
      <main className="mx-auto grid max-w-6xl gap-6 p-4">
        <KeyStatsCards stats={stats.data} error={stats.error} />
        <div className="grid gap-6 lg:grid-cols-[22rem_1fr]">
          <div className="grid content-start gap-6">
            <GenerateKeysCard />
            <ExportKeysForm />
          </div>
          <AvailableKeysList />
        </div>
        <PrivateGroupsCard />
        <MonetizationOverview />
      </main>
    </div>
  );
}
