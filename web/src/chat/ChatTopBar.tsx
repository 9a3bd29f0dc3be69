import type { SelfUser } from '@enclave/protocol';
import { KeyRound, LockKeyhole, LogOut, Network, Shield, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'wouter';
import { useAuth } from '../auth/auth-context';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';

/** `admin`: the member's server-side role is admin (never inferred from the token or the username). */
export function ChatTopBar({ user, admin }: { user: SelfUser; admin: boolean }) {
  const { logout } = useAuth();
  const [leaving, setLeaving] = useState(false);

  return (
    <header className="border-b border-border bg-surface/80">
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-x-3 gap-y-2 px-3 py-2 sm:px-4 sm:py-3">
        <div className="flex items-center gap-2">
          <Shield className="size-5 text-accent" aria-hidden="true" />
          <span className="text-lg font-bold tracking-tight">Enclave</span>
          {admin ? (
            <Badge tone="warning">
              <ShieldCheck aria-hidden="true" /> Admin View
            </Badge>
          ) : null}
        </div>
        {/* Phones show the actions as icons; their names stay for screen readers and tests. */}
        <div className="flex items-center gap-2 sm:gap-3">
          {admin ? (
            <Link
              href="/admin"
              className="inline-flex min-h-8 min-w-8 items-center justify-center gap-1 text-sm text-accent hover:underline"
            >
              <KeyRound className="size-4" aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Key management</span>
            </Link>
          ) : null}
          <Link
            href="/security"
            className="inline-flex min-h-8 min-w-8 items-center justify-center gap-1 text-sm text-accent hover:underline"
          >
            <LockKeyhole className="size-4" aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Security</span>
          </Link>
          <Link
            href="/p2p-network"
            className="inline-flex min-h-8 min-w-8 items-center justify-center gap-1 text-sm text-accent hover:underline"
          >
            <Network className="size-4" aria-hidden="true" /> <span className="sr-only sm:not-sr-only">P2P Network</span>
          </Link>
          <span className="hidden text-sm text-muted sm:inline">
            Signed in as <strong className="text-foreground">{user.username}</strong>
          </span>
          <Button
            variant="outline"
            size="sm"
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              void logout();
            }}
          >
            <LogOut aria-hidden="true" /> <span className="sr-only sm:not-sr-only">Logout</span>
          </Button>
        </div>
      </div>
    </header>
  );
}
