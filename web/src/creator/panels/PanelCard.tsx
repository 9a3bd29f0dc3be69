import { AlertCircle, Loader2 } from 'lucide-react';
import { useId, type ReactNode } from 'react';
import { Button } from '../../components/ui/Button';
import { Card } from '../../components/ui/Card';
import { serverText } from '../creator-toasts';
import { formatTime } from '../../lib/format';

type PanelCardProps = {
  title: string;
  description: ReactNode;
  /** Right side of the header: refresh note, actions. */
  aside?: ReactNode;
  children: ReactNode;
};

/** One of the console's panels: a titled region (so people and tests can find it by name). */
export function PanelCard({ title, description, aside, children }: PanelCardProps) {
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId} data-panel={title}>
      <div className="flex flex-wrap items-start justify-between gap-3 border-b border-border p-5">
        <div className="grid gap-1">
          <h2 id={titleId} className="text-lg font-semibold tracking-tight">
            {title}
          </h2>
          <p className="max-w-3xl text-sm text-muted">{description}</p>
        </div>
        {aside}
      </div>
      <div className="p-5">{children}</div>
    </Card>
  );
}

/** "Updated 14:03:22 · refreshes every 30 s" */
export function UpdatedAt({ at, every, fetching }: { at: number; every?: string; fetching: boolean }) {
  return (
    <p className="flex items-center gap-1.5 text-xs text-muted" aria-live="polite">
      {fetching ? <Loader2 className="size-3 animate-spin" aria-hidden="true" /> : null}
      {at ? `Updated ${formatTime(at)}` : 'Loading…'}
      {every ? ` · refreshes every ${every}` : null}
    </p>
  );
}

export function PanelLoading({ what }: { what: string }) {
  return (
    <p className="flex items-center gap-2 py-6 text-sm text-muted" aria-busy="true">
      <Loader2 className="size-4 animate-spin" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function PanelError({ error, what, onRetry }: { error: unknown; what: string; onRetry: () => void }) {
  return (
    <div
      role="alert"
      className="flex flex-wrap items-center justify-between gap-3 rounded-lg border border-red-500/40 bg-red-950/40 p-4 text-sm text-red-100"
    >
      <span className="flex items-center gap-2">
        <AlertCircle className="size-4 text-red-400" aria-hidden="true" />
        Could not load {what}: {serverText(error, 'Failed to connect to server')}
      </span>
      <Button variant="outline" size="sm" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

/** What a panel says when there is honestly nothing to show. */
export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="grid justify-items-center gap-1 rounded-lg border border-dashed border-border px-4 py-8 text-center" data-empty-state>
      <p className="font-medium">{title}</p>
      <p className="max-w-md text-sm text-muted">{children}</p>
    </div>
  );
}
