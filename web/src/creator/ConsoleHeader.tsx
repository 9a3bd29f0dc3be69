import { useQueryClient } from '@tanstack/react-query';
import { Crown, Lock, RefreshCw, ShieldHalf } from 'lucide-react';
import { Link } from 'wouter';
import { PageHeader } from '../components/PageHeader';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { toast } from '../components/ui/toast-store';
import { creatorQueryKeys, lockConsole } from './creator-queries';
import { creatorToasts } from './creator-toasts';

export function ConsoleHeader({ emergency, refreshing }: { emergency: boolean | null; refreshing: boolean }) {
  const queryClient = useQueryClient();
  return (
    <PageHeader
      width="7xl"
      icon={
        <span className="grid size-9 place-items-center rounded-lg border border-amber-400/40 bg-amber-400/10">
          <Crown className="size-5 text-amber-300" aria-hidden="true" />
        </span>
      }
      title="Creator Access"
      subtitle="Network creator console"
      status={
        emergency === null ? null : emergency ? <Badge tone="danger">Emergency mode</Badge> : <Badge tone="success">Network normal</Badge>
      }
      actionsLabel="Console"
      actions={
        <>
          <Button variant="ghost" size="sm" onClick={() => void queryClient.invalidateQueries({ queryKey: creatorQueryKeys.all })}>
            <RefreshCw className={refreshing ? 'animate-spin' : undefined} aria-hidden="true" /> Refresh
          </Button>
          <Button variant="outline" size="sm" asChild>
            <Link href="/advanced-security">
              <ShieldHalf aria-hidden="true" /> Advanced Security
            </Link>
          </Button>
          <Button
            variant="secondary"
            size="sm"
            onClick={() => {
              lockConsole(queryClient);
              toast(creatorToasts.locked);
            }}
          >
            <Lock aria-hidden="true" /> Lock console
          </Button>
        </>
      }
    />
  );
}
