import type { SecurityState } from '@enclave/protocol';
import { EyeOff } from 'lucide-react';
import { useId } from 'react';
import { Card } from '../components/ui/Card';
import { obfuscationTexts as t } from './advanced-security-texts';
import { obfuscationFigures } from './obfuscation';

/**
 * "Obfuscation Status" (docs/spec.md §2), once for the page: the figures are the network's, not an
 * event's, so every event card would repeat the same block.
 */
export function ObfuscationStatus({ metrics }: { metrics: SecurityState | undefined }) {
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId} className="grid gap-3 p-5" data-obfuscation>
      <div className="grid gap-1">
        <h3 id={titleId} className="flex items-center gap-2 text-lg font-semibold tracking-tight">
          <EyeOff className="size-5 text-accent" aria-hidden="true" /> {t.title}
        </h3>
        <p className="text-xs text-muted">{t.note}</p>
      </div>
      <dl className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {obfuscationFigures(metrics).map((f) => (
          <div key={f.key} className="grid content-start gap-0.5 rounded-md border border-border bg-background/50 p-3">
            <dt className="text-xs font-semibold uppercase tracking-wider text-muted">{f.name}</dt>
            <dd className="text-lg font-semibold tabular-nums" data-obfuscation-figure={f.name}>
              {f.value}
            </dd>
            <dd className="text-xs text-muted">{f.hint}</dd>
          </div>
        ))}
      </dl>
    </Card>
  );
}
