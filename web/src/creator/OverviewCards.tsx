import type { Overview } from '@enclave/protocol';
import { Activity, Ban, MessageSquare, Radio, Users } from 'lucide-react';
import { StatCard } from '../components/ui/StatCard';

/**
 * Who "Active (24 h)" counts, as the server's query does (server/src/creator/routes.ts): members
 * banned now are left out, even if they were active before their ban.
 */
const ACTIVE_HINT = 'Members not banned now who signed in or sent a message in the last 24 hours';

/** The overview's figures, each straight from GET /api/creator/overview ("—" until it answered). */
export function OverviewCards({ overview }: { overview: Overview | undefined }) {
  return (
    <section aria-label="Network overview" className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
      <StatCard
        label="Total Members"
        value={overview?.totalUsers ?? null}
        hint="Every account, banned ones included"
        icon={<Users className="size-4" aria-hidden="true" />}
      />
      <StatCard
        label="Online Now"
        value={overview?.onlineUsers ?? null}
        hint="Members with a connection open"
        icon={<Radio className="size-4 text-emerald-400" aria-hidden="true" />}
      />
      <StatCard
        label="Active (24 h)"
        value={overview?.activeUsers ?? null}
        hint={ACTIVE_HINT}
        icon={<Activity className="size-4" aria-hidden="true" />}
      />
      <StatCard
        label="Banned Members"
        value={overview?.bannedUsers ?? null}
        hint="Cannot sign in until unbanned"
        icon={<Ban className="size-4 text-red-400" aria-hidden="true" />}
      />
      <StatCard
        label="Total Messages"
        value={overview?.totalMessages ?? null}
        hint="Stored ciphertexts, all conversations"
        icon={<MessageSquare className="size-4" aria-hidden="true" />}
      />
    </section>
  );
}
