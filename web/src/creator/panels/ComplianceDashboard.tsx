import type { Compliance } from '@enclave/protocol';
import { CheckCircle2, RefreshCw, TriangleAlert, XCircle } from 'lucide-react';
import { Badge } from '../../components/ui/Badge';
import { Button } from '../../components/ui/Button';
import { cn } from '../../lib/cn';
import { useCompliance } from '../creator-queries';
import { PanelCard, PanelError, PanelLoading, UpdatedAt } from './PanelCard';

type Status = Compliance['checks'][number]['status'];

const statusView: Record<Status, { label: string; tone: 'success' | 'warning' | 'danger'; icon: typeof CheckCircle2 }> = {
  compliant: { label: 'Compliant', tone: 'success', icon: CheckCircle2 },
  warning: { label: 'Warning', tone: 'warning', icon: TriangleAlert },
  non_compliant: { label: 'Non-compliant', tone: 'danger', icon: XCircle },
};

function scoreColour(score: number): string {
  if (score >= 80) return 'bg-emerald-500';
  if (score >= 50) return 'bg-amber-500';
  return 'bg-red-500';
}

/** Checks of this deployment as the server sees it, each with the reason for its verdict. */
export function ComplianceDashboard() {
  const compliance = useCompliance();
  const description =
    'Checks of this deployment, made by the server when you open this panel: transport, master key, headers, rate limits, event retention, keys, backups and canaries.';
  const aside = (
    <div className="flex items-center gap-3">
      <UpdatedAt at={compliance.dataUpdatedAt} fetching={compliance.isFetching} />
      <Button variant="outline" size="sm" disabled={compliance.isFetching} onClick={() => void compliance.refetch()}>
        <RefreshCw aria-hidden="true" /> Check again
      </Button>
    </div>
  );

  return (
    <PanelCard title="Compliance Dashboard" description={description} aside={aside}>
      {compliance.isPending ? (
        <PanelLoading what="compliance checks" />
      ) : compliance.isError ? (
        <PanelError error={compliance.error} what="compliance checks" onRetry={() => void compliance.refetch()} />
      ) : (
        <div className="grid gap-5">
          <Summary data={compliance.data} />
          <ul className="grid gap-2">
            {compliance.data.checks.map((check) => {
              const view = statusView[check.status];
              const Icon = view.icon;
              return (
                <li
                  key={check.name}
                  data-check={check.name}
                  data-status={check.status}
                  className="grid gap-1 rounded-lg border border-border bg-background/40 p-3 sm:grid-cols-[1fr_auto] sm:items-start"
                >
                  <div className="flex items-start gap-2.5">
                    <Icon
                      className={cn(
                        'mt-0.5 size-4 shrink-0',
                        view.tone === 'success' ? 'text-emerald-400' : view.tone === 'warning' ? 'text-amber-400' : 'text-red-400',
                      )}
                      aria-hidden="true"
                    />
                    <div className="grid gap-0.5">
                      <p className="font-medium">{check.name}</p>
                      <p className="text-sm text-muted">{check.description}</p>
                    </div>
                  </div>
                  <div className="flex items-center gap-3 pl-6 sm:pl-0">
                    <Badge tone={view.tone}>{view.label}</Badge>
                    <span className="w-14 text-right text-sm font-semibold tabular-nums" data-col="score">
                      {check.score}/100
                    </span>
                  </div>
                </li>
              );
            })}
          </ul>
        </div>
      )}
    </PanelCard>
  );
}

function Summary({ data }: { data: Compliance }) {
  const counts = { compliant: 0, warning: 0, non_compliant: 0 };
  for (const c of data.checks) counts[c.status] += 1;
  return (
    <div className="grid gap-3 rounded-lg border border-border bg-surface-raised/50 p-4 sm:grid-cols-[auto_1fr] sm:items-center sm:gap-6">
      <div>
        <p className="text-xs text-muted">Overall score</p>
        <p className="text-3xl font-semibold tabular-nums" data-compliance-score={data.score}>
          {data.score}
          <span className="text-base font-normal text-muted">/100</span>
        </p>
      </div>
      <div className="grid gap-2">
        <div
          className="h-2 overflow-hidden rounded-full bg-background"
          role="meter"
          aria-label="Compliance score"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={data.score}
        >
          <div className={cn('h-full rounded-full', scoreColour(data.score))} style={{ width: `${data.score}%` }} />
        </div>
        <p className="text-sm text-muted">
          {data.checks.length} checks: <span className="text-emerald-300">{counts.compliant} compliant</span>,{' '}
          <span className="text-amber-300">{counts.warning} warning</span>,{' '}
          <span className="text-red-300">{counts.non_compliant} non-compliant</span>. Each check scores 100, 50 or 0; the overall score is
          their average.
        </p>
      </div>
    </div>
  );
}
