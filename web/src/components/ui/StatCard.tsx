import type { ReactNode } from 'react';
import { Card } from './Card';

/** One figure of a dashboard. `value` is null while loading or when there is no figure: shown as "—". */
export function StatCard({ label, value, hint, icon }: { label: string; value: ReactNode | null; hint?: string; icon?: ReactNode }) {
  return (
    <Card className="p-5" role="group" aria-label={label}>
      <div className="flex items-center justify-between text-sm text-muted">
        <span>{label}</span>
        {icon}
      </div>
      <div className="mt-2 text-2xl font-semibold tabular-nums" data-stat={label}>
        {value ?? '—'}
      </div>
      {hint && <p className="mt-1 text-xs text-muted">{hint}</p>}
    </Card>
  );
}
