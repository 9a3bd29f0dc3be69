import { useQueryClient } from '@tanstack/react-query';
import { Crown, Lock, RefreshCw, ShieldHalf } from 'lucide-react';
import { Link } from 'wouter';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { toast } from '../components/ui/toast-store';
import { creatorQueryKeys, lockConsole } from './creator-queries';
import { creatorToasts } from './creator-toasts';

export function ConsoleHeader({ emergency, refreshing }: { emergency: boolean | null; refreshing: boolean }) {
  const queryClient = useQueryClient();
  return (
    <header className="border-b border-border bg-surface/80">
      <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 px-4 py-3">
        <div className="flex items-center gap-3">
          <span className="grid size-9 place-items-center rounded-lg border border-amber-400/40 bg-amber-400/10">
            <Crown className="size-5 text-amber-300" aria-hidden="true" />
          </span>
          <div>
            <h1 className="text-lg font-bold leading-tight tracking-tight">Creator Access</h1>
            <p className="text-xs text-muted">Network creator console</p>
          </div>
          {emergency === null ? null : emergency ? (
            <Badge tone="danger">Emergency mode</Badge>
          ) : (
            <Badge tone="success">Network normal</Badge>
          )}
        </div>
        <nav aria-label="Console" className="flex flex-wrap items-center gap-2">
          <Button
            variant="ghost"
            size="sm"
            onClick={() => void queryClient.invalidateQueries({ queryKey: creatorQueryKeys.all })}
          >
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
        </nav>
      </div>
    </header>
  );
}
