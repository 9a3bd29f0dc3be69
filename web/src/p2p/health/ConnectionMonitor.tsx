import { Activity, AlertTriangle } from 'lucide-react';
import { Badge, type BadgeProps } from '../../components/ui/Badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../../components/ui/Card';
import { StatCard } from '../../components/ui/StatCard';
import { formatTime } from '../../lib/format';
import {
  formatKbps,
  formatMs,
  formatPercent,
  HEALTH_CHECK_INTERVAL_MS,
  hintsFor,
  LATENCY_BANDS_MS,
  type Figure,
  type HealthStatus,
} from './connection-health';
import { useConnectionHealth } from './use-connection-health';

const statusLabels: Record<HealthStatus, string> = {
  excellent: 'Excellent',
  good: 'Good',
  poor: 'Poor',
  unstable: 'Unstable',
  disconnected: 'Disconnected',
};

const statusTones: Record<HealthStatus, NonNullable<BadgeProps['tone']>> = {
  excellent: 'success',
  good: 'success',
  poor: 'warning',
  unstable: 'danger',
  disconnected: 'danger',
};

/** A figure's value, carrying the raw number in data-value; null (StatCard shows "—") when unknown. */
const figureValue = (figure: Figure, format: (value: number) => string) =>
  figure.value === null ? null : <span data-value={figure.value}>{format(figure.value)}</span>;

const figureHint = (figure: Figure) => (figure.value === null ? figure.reason : figure.basis);

/** HEAD /api/health every 5 s with latency bands; throughput and loss on `link` when in a room. */
export function ConnectionMonitor({ link }: { link: RTCPeerConnection | null }) {
  const health = useConnectionHealth(link);
  const hints = hintsFor(health);
  const latency: Figure =
    health.latencyMs !== null
      ? { value: health.latencyMs, basis: 'HEAD /api/health, last check' }
      : { value: null, reason: health.failure ? `last check failed: ${health.failure}` : 'first check running' };
  return (
    <Card aria-labelledby="connection-monitor-title">
      <CardHeader>
        <div className="flex items-center justify-between gap-3">
          <CardTitle id="connection-monitor-title" className="flex items-center gap-2">
            <Activity className="size-5 text-accent" aria-hidden="true" /> Connection monitor
          </CardTitle>
          <Badge
            role="status"
            aria-label={`Connection: ${health.status ? statusLabels[health.status] : 'checking'}`}
            data-health-status={health.status ?? 'checking'}
            tone={health.status ? statusTones[health.status] : 'neutral'}
          >
            {health.status ? statusLabels[health.status] : 'Checking…'}
          </Badge>
        </div>
        <CardDescription>
          The server is checked every {HEALTH_CHECK_INTERVAL_MS / 1000} s: under {LATENCY_BANDS_MS.excellent} ms is excellent, under{' '}
          {LATENCY_BANDS_MS.good} ms good, under {LATENCY_BANDS_MS.poor} ms poor, slower unstable, no answer disconnected.
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4">
        <div className="grid grid-cols-2 gap-3">
          <StatCard label="Latency" value={figureValue(latency, formatMs)} hint={figureHint(latency)} />
          <StatCard label="Throughput" value={figureValue(health.throughput, formatKbps)} hint={figureHint(health.throughput)} />
          <StatCard label="Packet loss" value={figureValue(health.packetLoss, formatPercent)} hint={figureHint(health.packetLoss)} />
          <StatCard
            label="Last seen"
            value={
              health.lastSeen === null ? null : (
                <time dateTime={new Date(health.lastSeen).toISOString()}>{formatTime(health.lastSeen)}</time>
              )
            }
            hint={health.lastSeen === null ? 'the server has not answered yet' : 'the server last answered'}
          />
        </div>
        {/* Always in the page, so screen readers announce hints as they come and go. */}
        <ul className="grid gap-2" aria-label="Connection hints" aria-live="polite">
          {hints.map((hint) => (
            <li
              key={hint.id}
              data-hint={hint.id}
              className="flex items-start gap-2 rounded-md border border-amber-500/40 bg-amber-500/10 p-3 text-sm text-amber-200"
            >
              <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
              <span>{hint.text}</span>
            </li>
          ))}
        </ul>
      </CardContent>
    </Card>
  );
}
