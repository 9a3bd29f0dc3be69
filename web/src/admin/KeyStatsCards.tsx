import type { KeyStats } from '@enclave/protocol';
import { CircleDollarSign, KeyRound, Percent, PackageOpen } from 'lucide-react';
import { StatCard } from '../components/ui/StatCard';
import { isApiError } from '../net/api-error';
import { formatUsd } from '../lib/format';

/** The four figures of the panel, straight from /api/admin/key-stats ("—" until they arrive). */
export function KeyStatsCards({ stats, error }: { stats: KeyStats | undefined; error: Error | null }) {
  const icon = 'size-4 text-accent';
  return (
    <section aria-label="Key statistics" className="grid gap-2">
      <div className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
        <StatCard
          label="Total Keys"
          value={stats?.total ?? null}
          hint={stats ? `${stats.used} used · ${stats.revoked} revoked · ${stats.expired} expired` : undefined}
          icon={<KeyRound className={icon} aria-hidden="true" />}
        />
        <StatCard
          label="Revenue"
          value={stats ? formatUsd(stats.revenue) : null}
          hint="Sale prices of used keys ($50 where none was set)"
          icon={<CircleDollarSign className={icon} aria-hidden="true" />}
        />
        <StatCard
          label="Available Keys"
          value={stats?.available ?? null}
          hint="Unused, unrevoked and unexpired"
          icon={<PackageOpen className={icon} aria-hidden="true" />}
        />
        <StatCard
          label="Conversion Rate"
          value={stats ? `${stats.conversionRate}%` : null}
          hint="Used keys out of all keys"
          icon={<Percent className={icon} aria-hidden="true" />}
        />
      </div>
      {error ? (
        <p role="alert" className="text-sm text-danger">
          {isApiError(error, 401) || isApiError(error, 403)
            ? `The server refused access: ${error.serverMessage ?? 'administrator access required'}. Sign in again as an administrator.`
            : 'Could not load the key statistics. Use Refresh to try again.'}
        </p>
      ) : null}
    </section>
  );
}
