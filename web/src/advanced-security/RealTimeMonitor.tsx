import type { LiveEvent, SecurityState } from '@enclave/protocol';
import { Activity, Ban, Bug, EyeOff, Loader2, Pause, Play, Siren } from 'lucide-react';
import { useId } from 'react';
import { Button } from '../components/ui/Button';
import { Card } from '../components/ui/Card';
import { StatCard } from '../components/ui/StatCard';
import { cn } from '../lib/cn';
import { liveMonitor } from '../security/constants';
import { monitorTexts as t } from './advanced-security-texts';
import { LiveEventCard } from './LiveEventCard';
import { ObfuscationStatus } from './ObfuscationStatus';

type RealTimeMonitorProps = {
  metrics: SecurityState | undefined;
  events: readonly LiveEvent[] | undefined;
  blockedIps: ReadonlySet<string>;
  live: boolean;
  onToggleLive: () => void;
  onBlock: (ip: string) => void;
  blocking: string | null;
};

/** "Real-Time Security Monitor" (docs/spec.md §2): five tiles, the network's obfuscation status, then the live events. */
export function RealTimeMonitor({ metrics, events, blockedIps, live, onToggleLive, onBlock, blocking }: RealTimeMonitorProps) {
  const titleId = useId();
  const tiles = t.tiles;
  return (
    <section aria-labelledby={titleId} className="grid gap-4">
      <h2 id={titleId} className="flex items-center gap-2 text-xl font-semibold tracking-tight">
        <Activity className="size-5 text-accent" aria-hidden="true" /> {t.title}
      </h2>
      <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-5">
        <StatCard
          label={tiles.activeThreats.label}
          value={metrics?.activeThreats ?? null}
          hint={tiles.activeThreats.hint}
          icon={<Siren className="size-4 text-red-400" aria-hidden="true" />}
        />
        <StatCard
          label={tiles.blockedIps.label}
          value={metrics?.blockedIPs ?? null}
          hint={tiles.blockedIps.hint}
          icon={<Ban className="size-4 text-orange-300" aria-hidden="true" />}
        />
        <StatCard
          label={tiles.deobfuscation.label}
          value={metrics?.tamperReports ?? null}
          hint={tiles.deobfuscation.hint}
          icon={<Bug className="size-4 text-amber-300" aria-hidden="true" />}
        />
        {/* docs/spec.md §4: "standard" until the metrics load, then "enhanced". */}
        <StatCard
          label={tiles.obfuscation.label}
          value={metrics ? t.obfuscationLevels.enhanced : t.obfuscationLevels.standard}
          hint={tiles.obfuscation.hint}
          icon={<EyeOff className="size-4 text-accent" aria-hidden="true" />}
        />
        <StatCard
          label={tiles.emergency.label}
          value={metrics ? (metrics.emergencyMode ? t.emergencyStates.active : t.emergencyStates.standby) : null}
          hint={metrics ? (metrics.emergencyMode ? tiles.emergency.active : tiles.emergency.standby) : undefined}
          icon={<Siren className={cn('size-4', metrics?.emergencyMode ? 'animate-pulse text-red-400' : 'text-muted')} aria-hidden="true" />}
        />
      </div>
      {metrics?.emergencyMode ? (
        <p
          role="alert"
          className="rounded-lg border border-red-500/70 bg-red-950/60 p-4 text-sm font-medium text-red-100"
          data-emergency-alert
        >
          {t.emergencyAlert}
        </p>
      ) : null}
      <ObfuscationStatus metrics={metrics} />
      <LiveEvents events={events} blockedIps={blockedIps} live={live} onToggleLive={onToggleLive} onBlock={onBlock} blocking={blocking} />
    </section>
  );
}

function LiveEvents({ events, blockedIps, live, onToggleLive, onBlock, blocking }: Omit<RealTimeMonitorProps, 'metrics'>) {
  const titleId = useId();
  const shown = (events ?? []).slice(0, liveMonitor.maxEvents);
  return (
    <Card role="region" aria-labelledby={titleId}>
      <div className="flex flex-wrap items-center justify-between gap-3 border-b border-border p-5">
        <div className="grid gap-1">
          <h3 id={titleId} className="text-lg font-semibold tracking-tight">
            {t.events}
          </h3>
          <p className="text-xs text-muted">{live ? t.pollNote(liveMonitor.pollIntervalMs / 1000) : t.pausedNote}</p>
        </div>
        <div className="flex items-center gap-3">
          <span
            className={cn('inline-flex items-center gap-1.5 text-sm font-medium', live ? 'text-emerald-300' : 'text-muted')}
            data-live-state={live ? 'live' : 'offline'}
          >
            <span className={cn('size-2.5 rounded-full', live ? 'animate-pulse bg-emerald-400' : 'bg-slate-500')} aria-hidden="true" />
            {live ? t.live : t.offline}
          </span>
          <Button variant="secondary" size="sm" onClick={onToggleLive}>
            {live ? <Pause aria-hidden="true" /> : <Play aria-hidden="true" />} {live ? t.pause : t.resume}
          </Button>
        </div>
      </div>
      <div className="p-5">
        {events === undefined ? (
          <p className="flex items-center gap-2 text-sm text-muted" aria-busy="true">
            <Loader2 className="size-4 animate-spin" aria-hidden="true" /> {t.loading}
          </p>
        ) : shown.length === 0 ? (
          <div
            className="grid justify-items-center gap-1 rounded-lg border border-dashed border-border px-4 py-8 text-center"
            data-empty-state
          >
            <p className="font-medium">{t.noEvents}</p>
            <p className="text-sm text-muted">{t.noEventsNote}</p>
          </div>
        ) : (
          <ol className="grid max-h-[48rem] gap-3 overflow-y-auto pr-1" aria-label={t.events}>
            {shown.map((event) => (
              <LiveEventCard
                key={event.id}
                event={event}
                blocked={event.ipAnalysis.clientIP !== null && blockedIps.has(event.ipAnalysis.clientIP)}
                blocking={blocking !== null && blocking === event.ipAnalysis.clientIP}
                onBlock={onBlock}
              />
            ))}
          </ol>
        )}
      </div>
    </Card>
  );
}
