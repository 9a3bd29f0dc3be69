import type { SeverityCounts } from '@enclave/protocol';
import { AlertTriangle, Loader2, Radio, ShieldCheck } from 'lucide-react';
import { useId, type ReactNode } from 'react';
import { Badge } from '../components/ui/Badge';
import { Card } from '../components/ui/Card';
import { cn } from '../lib/cn';
import { formatTime } from '../lib/format';
import { liveMonitor, type ProtectionLevel } from '../security/constants';
import { commandCenterTexts as t } from './advanced-security-texts';
import { SeverityTag } from './SeverityTag';
import { formatAccuracy, formatResponseTime, nameLabel, type CombinedThreat, type ThreatVectorRow } from './threat-model';

const levelTone = { minimal: 'success', standard: 'accent', enhanced: 'warning', military: 'danger' } as const;
const barColour: Record<ProtectionLevel, string> = {
  minimal: 'bg-emerald-500',
  standard: 'bg-accent',
  enhanced: 'bg-amber-500',
  military: 'bg-red-500',
};

type CommandCenterProps = {
  threat: CombinedThreat;
  /** The network's part of the score; null until the metrics arrived. */
  networkScore: number | null;
  localScore: number;
  /** Null until the live events arrived. */
  vectors: ThreatVectorRow[] | null;
  live: boolean;
};

/** The Security Command Center (docs/spec.md §2): the network's threat state and this browser's, together. */
export function CommandCenter({ threat, networkScore, localScore, vectors, live }: CommandCenterProps) {
  const titleId = useId();
  return (
    <Card role="region" aria-labelledby={titleId} className="overflow-hidden">
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-border bg-gradient-to-r from-emerald-950/40 to-transparent p-5">
        <div className="flex items-center gap-3">
          <span className="grid size-10 place-items-center rounded-lg border border-accent/40 bg-accent/10">
            <ShieldCheck className="size-5 text-accent" aria-hidden="true" />
          </span>
          <div>
            <h2 id={titleId} className="text-lg font-semibold tracking-tight">
              {t.title}
            </h2>
            <p className="text-sm text-muted">{t.subtitle}</p>
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {networkScore === null ? null : (
            <Badge
              tone={levelTone[threat.protectionLevel]}
              aria-label={`${t.protectionLevel} ${threat.protectionLevel}`}
              data-protection-level={threat.protectionLevel}
            >
              {threat.protectionLevel.toUpperCase()}
            </Badge>
          )}
          {live ? (
            <span className="inline-flex items-center gap-1.5 text-xs font-medium text-emerald-300" data-live-monitoring>
              <Radio className="size-3.5 animate-pulse" aria-hidden="true" /> {t.liveMonitoring}
            </span>
          ) : null}
        </div>
      </div>

      {/* Until the network's figures arrive, an empty list would claim that nothing happened. */}
      {networkScore === null || vectors === null ? (
        <p className="flex items-center gap-2 p-5 text-sm text-muted" aria-busy="true">
          <Loader2 className="size-4 animate-spin" aria-hidden="true" /> {t.waiting}
        </p>
      ) : (
        <div className="grid gap-5 p-5">
          {threat.underAttack ? (
            <div role="alert" className="flex items-start gap-3 rounded-lg border border-red-500/70 bg-red-950/60 p-4" data-under-attack>
              <AlertTriangle className="mt-0.5 size-5 shrink-0 animate-pulse text-red-300" aria-hidden="true" />
              <div>
                <p className="font-semibold text-red-100">{t.attackTitle}</p>
                <p className="text-sm text-red-200/90">{t.attackText}</p>
              </div>
            </div>
          ) : null}

          <div className="grid gap-5 lg:grid-cols-2">
            <Assessment threat={threat} networkScore={networkScore} localScore={localScore} />
            <Countermeasures names={threat.countermeasures} />
          </div>
          <Summary counts={threat.counts} />
          <Vectors rows={vectors} />
        </div>
      )}
    </Card>
  );
}

function Section({ title, aside, children }: { title: string; aside?: ReactNode; children: ReactNode }) {
  const id = useId();
  return (
    <section aria-labelledby={id} className="grid content-start gap-3 rounded-lg border border-border bg-background/40 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={id} className="text-sm font-semibold">
          {title}
        </h3>
        {aside}
      </div>
      {children}
    </section>
  );
}

function Assessment({ threat, networkScore, localScore }: { threat: CombinedThreat; networkScore: number; localScore: number }) {
  const max = liveMonitor.threatScaleMax;
  return (
    <Section
      title={t.assessment}
      aside={
        <Badge tone={levelTone[threat.protectionLevel]} data-threat-level={threat.threatLevel}>
          {t.threatLevel} {threat.threatLevel}/{max}
        </Badge>
      }
    >
      <div
        role="progressbar"
        aria-label={t.threatLevel}
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={threat.threatLevel}
        className="h-2.5 overflow-hidden rounded-full bg-surface-raised"
      >
        <div
          className={cn('h-full rounded-full transition-[width]', barColour[threat.protectionLevel])}
          style={{ width: `${(threat.threatLevel / max) * 100}%` }}
        />
      </div>
      <p className="text-xs text-muted">{t.threatSources(networkScore, localScore)}</p>
      <dl className="grid grid-cols-2 gap-3">
        <Figure
          label={t.accuracy}
          value={formatAccuracy(threat.detectionAccuracy)}
          note={threat.detectionAccuracy === null ? t.accuracyEmpty : t.accuracyNote}
        />
        <Figure
          label={t.responseTime}
          value={formatResponseTime(threat.responseTimeMs)}
          note={threat.responseTimeMs === null ? t.responseEmpty : t.responseNote}
        />
      </dl>
    </Section>
  );
}

function Figure({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="grid content-start gap-0.5 rounded-md bg-surface-raised/60 p-3">
      <dt className="text-xs text-muted">{label}</dt>
      <dd className="text-xl font-semibold tabular-nums" data-figure={label}>
        {value}
      </dd>
      <dd className="text-xs text-muted">{note}</dd>
    </div>
  );
}

function Countermeasures({ names }: { names: string[] }) {
  return (
    <Section title={t.countermeasures}>
      {names.length === 0 ? (
        <p className="text-sm text-muted" data-empty-state>
          {t.noCountermeasures}
        </p>
      ) : (
        <ul className="grid gap-1.5">
          {names.map((name) => (
            <li
              key={name}
              className="flex items-center justify-between gap-2 rounded-md bg-surface-raised/60 px-3 py-2 text-sm"
              data-countermeasure={name}
            >
              <span>{nameLabel(name)}</span>
              <Badge tone="success">{t.countermeasureActive}</Badge>
            </li>
          ))}
        </ul>
      )}
    </Section>
  );
}

const summaryOrder = ['total', 'critical', 'high', 'medium', 'low'] as const;
const summaryColour = {
  total: 'text-foreground',
  critical: 'text-red-400',
  high: 'text-orange-300',
  medium: 'text-amber-300',
  low: 'text-slate-300',
};

function Summary({ counts }: { counts: SeverityCounts }) {
  return (
    <Section title={t.summary} aside={<span className="text-xs text-muted">{t.summaryNote}</span>}>
      <dl className="grid grid-cols-2 gap-3 sm:grid-cols-5">
        {summaryOrder.map((k) => (
          <div key={k} className="grid justify-items-center gap-0.5 rounded-md bg-surface-raised/60 p-3 text-center">
            <dt className="text-xs text-muted">{t.severities[k]}</dt>
            <dd className={cn('text-2xl font-semibold tabular-nums', counts[k] > 0 ? summaryColour[k] : 'text-muted')} data-summary={k}>
              {counts[k]}
            </dd>
          </div>
        ))}
      </dl>
    </Section>
  );
}

function Vectors({ rows }: { rows: ThreatVectorRow[] }) {
  return (
    <Section title={t.vectors}>
      {rows.length === 0 ? (
        <p className="text-sm text-muted" data-empty-state>
          {t.noVectors}
        </p>
      ) : (
        <ol className="grid max-h-96 gap-1.5 overflow-y-auto pr-1" aria-label={t.vectors}>
          {rows.map((row) => (
            <li
              key={row.key}
              className="grid gap-1 rounded-md border border-border bg-surface-raised/50 px-3 py-2"
              data-vector={row.type}
              data-origin={row.origin}
            >
              <div className="flex flex-wrap items-center gap-2">
                <SeverityTag severity={row.severity} />
                <span className="text-sm font-medium">{nameLabel(row.type)}</span>
                <time className="ml-auto text-xs text-muted tabular-nums" dateTime={new Date(row.at).toISOString()}>
                  {formatTime(row.at)}
                </time>
              </div>
              <p className="text-sm text-muted">{row.description}</p>
              {row.source ? (
                <p className="text-xs text-muted">
                  {t.source}{' '}
                  <span className="font-mono text-foreground/80" data-source>
                    {row.source}
                  </span>
                </p>
              ) : row.origin === 'browser' ? (
                <p className="text-xs text-muted">{t.fromBrowser}</p>
              ) : null}
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
