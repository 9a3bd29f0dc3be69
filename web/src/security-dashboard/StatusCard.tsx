import { CheckCircle2, Loader2, XCircle } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { cn } from '../lib/cn';
import { scoreTexts } from './security-texts';
import { securityScore, type CheckState, type StatusCheck } from './status-checks';

const icons: Record<CheckState, typeof CheckCircle2> = { pass: CheckCircle2, fail: XCircle, pending: Loader2 };
const iconTone: Record<CheckState, string> = { pass: 'text-emerald-400', fail: 'text-red-400', pending: 'animate-spin text-muted' };
const stateName: Record<CheckState, string> = { pass: 'passed', fail: 'failed', pending: 'running' };

/** System status: the checks and the score computed from them (how, said on screen). */
export function StatusCard({ checks }: { checks: readonly StatusCheck[] }) {
  const score = securityScore(checks);
  const tone = !score.complete
    ? 'text-muted'
    : score.score === 100
      ? 'text-emerald-300'
      : score.score >= 70
        ? 'text-amber-300'
        : 'text-red-300';
  return (
    <Card>
      <CardHeader>
        <CardTitle>System status</CardTitle>
        <CardDescription>{scoreTexts.how(score.total)}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div role="group" aria-label="Security score" className="flex items-baseline gap-3">
          <span className={cn('text-5xl font-bold tabular-nums', tone)} data-score={score.complete ? score.score : undefined}>
            {score.complete ? score.score : '…'}
          </span>
          <span className="text-sm text-muted">/ 100 · {scoreTexts.summary(score.passed, score.total)}</span>
        </div>
        <ul aria-label="Status checks" className="grid gap-2">
          {checks.map((check) => {
            const Icon = icons[check.state];
            return (
              <li
                key={check.id}
                aria-label={`${check.label}: ${stateName[check.state]}`}
                data-check={check.id}
                data-check-state={check.state}
                className="flex gap-3 rounded-lg border border-border bg-background/40 p-3"
              >
                <Icon className={cn('mt-0.5 size-5 shrink-0', iconTone[check.state])} aria-hidden="true" />
                <div className="grid gap-0.5">
                  <span className="text-sm font-medium">{check.label}</span>
                  <span className="text-xs text-muted">{check.detail}</span>
                </div>
              </li>
            );
          })}
        </ul>
      </CardContent>
    </Card>
  );
}
