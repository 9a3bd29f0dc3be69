import type { Risk } from '@enclave/protocol';
import type { ReactNode } from 'react';
import { useRisk } from '../creator-queries';
import { formatDateTime, formatRelative } from '../../lib/format';
import { EmptyState, PanelCard, PanelError, PanelLoading, UpdatedAt } from './PanelCard';
import { SeverityBadge } from './SeverityBadge';
import { TableFrame } from '../../components/ui/TableFrame';

type Row = Risk['members'][number] | Risk['ips'][number];

/** Risk per member and per address from the security events of the last 7 days; refreshed every 10 s while open. */
export function RiskVisualizer() {
  const risk = useRisk();
  const description =
    'Each security event of the last 7 days adds to the risk of the member it concerns and of the address it came from: low 1, medium 3, high 7, critical 15.';
  const aside = <UpdatedAt at={risk.dataUpdatedAt} every="10 s" fetching={risk.isFetching} />;

  return (
    <PanelCard title="Risk Visualizer" description={description} aside={aside}>
      {risk.isPending ? (
        <PanelLoading what="risk scores" />
      ) : risk.isError ? (
        <PanelError error={risk.error} what="risk scores" onRetry={() => void risk.refetch()} />
      ) : (
        <div className="grid gap-6 xl:grid-cols-2">
          <RiskTable
            title="Members"
            firstColumn="Member"
            rows={risk.data.members}
            empty="No member is linked to a security event in the last 7 days."
            name={(r) => ('username' in r ? r.username : '')}
            rowAttr="data-risk-member"
          />
          <RiskTable
            title="IP addresses"
            firstColumn="Address"
            rows={risk.data.ips}
            empty="No address has caused a security event in the last 7 days."
            name={(r) => ('ip' in r ? r.ip : '')}
            rowAttr="data-risk-ip"
            mono
          />
        </div>
      )}
    </PanelCard>
  );
}

type RiskTableProps = {
  title: string;
  firstColumn: string;
  rows: Row[];
  empty: ReactNode;
  name: (row: Row) => string;
  rowAttr: 'data-risk-member' | 'data-risk-ip';
  mono?: boolean;
};

function RiskTable({ title, firstColumn, rows, empty, name, rowAttr, mono = false }: RiskTableProps) {
  const top = Math.max(1, ...rows.map((r) => r.score));
  return (
    <div className="grid content-start gap-2">
      <h3 className="text-sm font-semibold">
        {title} <span className="font-normal text-muted">({rows.length})</span>
      </h3>
      {rows.length === 0 ? (
        <EmptyState title="No events yet">{empty}</EmptyState>
      ) : (
        <TableFrame className="rounded-lg border border-border">
          <table className="w-full text-sm" aria-label={`Risk by ${title.toLowerCase()}`}>
            <thead className="bg-surface-raised text-xs text-muted">
              <tr>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  {firstColumn}
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Score
                </th>
                <th scope="col" className="px-3 py-2 text-right font-medium">
                  Events
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Worst
                </th>
                <th scope="col" className="px-3 py-2 text-left font-medium">
                  Last seen
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={name(row)} {...{ [rowAttr]: name(row) }} className="border-t border-border">
                  <td className={mono ? 'px-3 py-2 font-mono text-xs' : 'px-3 py-2 font-medium'}>{name(row)}</td>
                  <td className="px-3 py-2">
                    <div className="flex items-center gap-2">
                      <span className="w-10 text-right font-semibold tabular-nums" data-col="score">
                        {row.score}
                      </span>
                      <span className="h-1.5 w-24 overflow-hidden rounded-full bg-surface-raised" aria-hidden="true">
                        <span
                          className="block h-full rounded-full bg-gradient-to-r from-amber-400 to-red-500"
                          style={{ width: `${Math.round((row.score / top) * 100)}%` }}
                        />
                      </span>
                    </div>
                  </td>
                  <td className="px-3 py-2 text-right tabular-nums" data-col="events">
                    {row.events}
                  </td>
                  <td className="px-3 py-2" data-col="worst">
                    <SeverityBadge severity={row.worst} />
                  </td>
                  <td className="px-3 py-2 text-muted" title={formatDateTime(row.lastSeen)}>
                    {formatRelative(row.lastSeen)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </div>
  );
}
