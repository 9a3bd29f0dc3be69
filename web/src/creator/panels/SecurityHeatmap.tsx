import { useId, useState } from 'react';
import { Label } from '../../components/ui/Input';
import { cn } from '../../lib/cn';
import { plural } from '../../lib/format';
import { useHeatmap } from '../creator-queries';
import { buildHeatmapGrid, eventTypeLabel, intensity, legendRange, type HeatmapCell } from '../heatmap-grid';
import { EmptyState, PanelCard, PanelError, PanelLoading, UpdatedAt } from './PanelCard';
import { TableFrame } from '../../components/ui/TableFrame';

const levelClasses = [
  'bg-surface-raised text-transparent',
  'bg-amber-500/25 text-amber-100',
  'bg-amber-500/50 text-amber-50',
  'bg-orange-500/75 text-white',
  'bg-red-500/90 text-white',
] as const;

const dayLabel = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short' });
const hourLabel = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
});

function cellTitle(cell: HeatmapCell): string {
  const when = hourLabel.format(new Date(cell.iso));
  if (!cell.inWindow) return `${when}: outside the last 7 days`;
  if (cell.count === 0) return `${when}: no events`;
  const parts = cell.byType.map((t) => `${eventTypeLabel(t.type)} ${t.count}`).join(', ');
  return `${when}: ${plural(cell.count, 'event')} (${parts})`;
}

/** Security events per hour over the last 7 days, from the security_events table; refreshed every 30 s while open. */
export function SecurityHeatmap() {
  const heatmap = useHeatmap();
  const [type, setType] = useState<string | null>(null);
  const selectId = useId();

  const description =
    'Real security events per hour over the last 7 days, in your local time: failed sign-ins, refused keys, wrong master keys, bans and every admin action.';
  const aside = <UpdatedAt at={heatmap.dataUpdatedAt} every="30 s" fetching={heatmap.isFetching} />;

  if (heatmap.isPending)
    return (
      <PanelCard title="Security Heatmap" description={description} aside={aside}>
        <PanelLoading what="security events" />
      </PanelCard>
    );
  if (heatmap.isError) {
    return (
      <PanelCard title="Security Heatmap" description={description} aside={aside}>
        <PanelError error={heatmap.error} what="the security heatmap" onRetry={() => void heatmap.refetch()} />
      </PanelCard>
    );
  }

  const all = buildHeatmapGrid(heatmap.data);
  // A type that no longer occurs in the window falls back to all types.
  const selected = type !== null && all.types.some((t) => t.type === type) ? type : null;
  const grid = selected === null ? all : buildHeatmapGrid(heatmap.data, selected);

  return (
    <PanelCard title="Security Heatmap" description={description} aside={aside}>
      {all.total === 0 ? (
        <EmptyState title="No security events in the last 7 days yet">
          Nothing has been recorded: no failed sign-ins, refused keys, wrong master keys or admin actions. Events appear here as they
          happen.
        </EmptyState>
      ) : (
        <div className="grid gap-5">
          <div className="flex flex-wrap items-end justify-between gap-3">
            <div className="grid gap-1.5">
              <Label htmlFor={selectId}>Event type</Label>
              <select
                id={selectId}
                value={selected ?? ''}
                onChange={(e) => setType(e.target.value || null)}
                className="h-9 rounded-md border border-border bg-background px-2 text-sm text-foreground focus:border-accent focus:outline-none"
              >
                <option value="">All event types ({all.total})</option>
                {all.types.map((t) => (
                  <option key={t.type} value={t.type}>
                    {eventTypeLabel(t.type)} ({t.count})
                  </option>
                ))}
              </select>
            </div>
            <p className="text-sm text-muted" data-heatmap-total={grid.total}>
              <strong className="text-foreground tabular-nums">{grid.total}</strong> event{grid.total === 1 ? '' : 's'}
              {selected ? ` of type ${eventTypeLabel(selected)}` : ''} · busiest hour{' '}
              <strong className="text-foreground tabular-nums">{grid.max}</strong>
            </p>
          </div>

          <TableFrame>
            <table className="w-full min-w-[46rem] border-separate border-spacing-0.5 text-[10px]" aria-label="Events per hour">
              <thead>
                <tr>
                  <th scope="col" className="w-24 text-left font-normal text-muted">
                    Day \ hour
                  </th>
                  {Array.from({ length: 24 }, (_, h) => (
                    <th key={h} scope="col" className="font-normal tabular-nums text-muted">
                      {String(h).padStart(2, '0')}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {grid.days.map((day) => (
                  <tr key={day.date.getTime()}>
                    <th scope="row" className="whitespace-nowrap pr-2 text-left text-xs font-normal text-muted">
                      {dayLabel.format(day.date)}
                    </th>
                    {day.cells.map((cell) => (
                      <td
                        key={cell.iso}
                        title={cellTitle(cell)}
                        data-hour={cell.iso}
                        data-count={cell.count}
                        className={cn(
                          'h-7 rounded-sm text-center font-semibold tabular-nums',
                          cell.inWindow
                            ? levelClasses[intensity(cell.count, grid.max)]
                            : 'bg-transparent text-transparent outline outline-1 -outline-offset-1 outline-border/50',
                        )}
                      >
                        {cell.count > 0 ? cell.count : ''}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>

          <div className="flex flex-wrap items-start justify-between gap-6">
            <div className="grid gap-1.5">
              <p className="text-xs font-medium text-muted">Legend (events in one hour)</p>
              <ul className="flex items-center gap-1 text-xs text-muted">
                <li className="flex items-center gap-1">
                  <span className={cn('inline-block size-4 rounded-sm', levelClasses[0])} aria-hidden="true" /> 0
                </li>
                {([1, 2, 3, 4] as const).map((level) => {
                  const range = legendRange(level, grid.max);
                  // With a quiet week some colours stand for no count at all: leave them out.
                  return range === null ? null : (
                    <li key={level} className="flex items-center gap-1 pl-2">
                      <span className={cn('inline-block size-4 rounded-sm', levelClasses[level])} aria-hidden="true" />
                      {range}
                    </li>
                  );
                })}
                <li className="flex items-center gap-1 pl-2">
                  <span
                    className="inline-block size-4 rounded-sm outline outline-1 -outline-offset-1 outline-border/50"
                    aria-hidden="true"
                  />
                  outside window
                </li>
              </ul>
            </div>
            <div className="grid min-w-64 gap-1.5">
              <p className="text-xs font-medium text-muted">By type, last 7 days</p>
              <ul className="grid gap-1 text-sm">
                {all.types.map((t) => (
                  <li key={t.type} data-type-total={t.type} className="flex items-center justify-between gap-6">
                    <span>{eventTypeLabel(t.type)}</span>
                    <span className="font-semibold tabular-nums">{t.count}</span>
                  </li>
                ))}
              </ul>
            </div>
          </div>
        </div>
      )}
    </PanelCard>
  );
}
