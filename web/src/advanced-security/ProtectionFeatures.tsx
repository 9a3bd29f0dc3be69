import { CheckCircle2, Circle } from 'lucide-react';
import { useId } from 'react';
import { Card } from '../components/ui/Card';
import { cn } from '../lib/cn';
import { useThreatState, type ProtectionFeature } from '../security/threat-state';
import { featureTexts as t } from './advanced-security-texts';

const features = {
  functionIntegrity: 'function_integrity',
  memoryProtection: 'memory_protection',
  domMonitoring: 'dom_monitoring',
  networkAnalysis: 'network_analysis',
} as const satisfies Record<keyof typeof t.features, ProtectionFeature>;

/**
 * "Protection Features Active" (docs/spec.md §2): a feature is ticked only while this browser's
 * detector really runs it (security-monitor.ts `runningFeatures`).
 */
export function ProtectionFeatures() {
  const titleId = useId();
  const runningNow = useThreatState().features;
  return (
    <Card role="region" aria-labelledby={titleId} className="p-5">
      <h2 id={titleId} className="text-lg font-semibold tracking-tight">
        {t.title}
      </h2>
      <p className="mt-1 text-sm text-muted">{t.note}</p>
      <ul className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {(Object.keys(features) as (keyof typeof features)[]).map((feature) => {
          const running = runningNow.includes(features[feature]);
          return (
            <li
              key={feature}
              className={cn(
                'flex items-center gap-2.5 rounded-lg border p-3',
                running ? 'border-emerald-500/40 bg-emerald-500/5' : 'border-border bg-surface-raised/40',
              )}
              data-feature={t.features[feature]}
              data-running={running}
            >
              {running ? (
                <CheckCircle2 className="size-5 shrink-0 text-emerald-400" role="img" aria-label={t.running} />
              ) : (
                <Circle className="size-5 shrink-0 text-muted" role="img" aria-label={t.notRunning} />
              )}
              <span className="grid">
                <span className="text-sm font-medium">{t.features[feature]}</span>
                <span className="text-xs text-muted">{running ? t.running : t.notRunning}</span>
              </span>
            </li>
          );
        })}
      </ul>
    </Card>
  );
}
