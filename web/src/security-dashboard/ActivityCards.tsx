import type { SeverityCounts } from '@enclave/protocol';
import { Activity, Bell, Gavel } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/Card';
import { SeverityBadge } from '../creator/panels/SeverityBadge';
import { formatDateTime, formatTime } from '../lib/format';
import type { ThreatState } from '../security/threat-state';
import { breachPolicyTexts, emptyTexts } from './security-texts';
import { useMySecurity } from './use-security-data';

const severities = ['critical', 'high', 'medium', 'low'] as const;
const words = (type: string) => type.replaceAll('_', ' ');

function Counts({ label, counts }: { label: string; counts: SeverityCounts | undefined }) {
  return (
    <div role="group" aria-label={label} className="grid gap-2">
      <h3 className="text-sm font-medium text-muted">{label}</h3>
      <dl className="grid grid-cols-5 gap-2">
        {(['total', ...severities] as const).map((key) => (
          <div key={key} className="rounded-lg border border-border bg-background/40 p-3">
            <dt className="text-xs text-muted capitalize">{key}</dt>
            <dd className="text-xl font-semibold tabular-nums" data-count={key}>
              {counts ? counts[key] : '—'}
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

/** Counters: the member's own security events on the server, and this browser's detections. */
export function CountersCard({ threat }: { threat: ThreatState }) {
  const mine = useMySecurity();
  return (
    <Card>
      <CardHeader>
        <CardTitle className="flex items-center gap-2">
          <Activity className="size-5 text-accent" aria-hidden="true" /> Counters
        </CardTitle>
        <CardDescription>
          Security events the server recorded about your account in the last 30 days, and what the tamper detector found in this browser
          since this page loaded ({threat.checks.run} of {threat.checks.due} scheduled checks run).
        </CardDescription>
      </CardHeader>
      <CardContent className="grid gap-4 md:grid-cols-2">
        <Counts label="Your account, last 30 days" counts={mine.data?.counts} />
        <Counts label="This browser, since the page loaded" counts={threat.counts} />
        {mine.error ? <p className="text-sm text-red-300 md:col-span-2">{emptyTexts.loadFailed}</p> : null}
      </CardContent>
    </Card>
  );
}

/** Recent alerts from both sources, and the breach policy in plain words. */
export function AlertsCard({ threat }: { threat: ThreatState }) {
  const mine = useMySecurity();
  const detections = [...threat.detections].reverse();
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_24rem]">
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <Bell className="size-5 text-accent" aria-hidden="true" /> Recent alerts
          </CardTitle>
        </CardHeader>
        <CardContent className="grid gap-4">
          <section aria-label="Account events" className="grid gap-2">
            <h3 className="text-sm font-medium text-muted">Your account</h3>
            {mine.data === undefined ? (
              <p className="text-sm text-muted">{mine.error ? emptyTexts.loadFailed : 'Loading…'}</p>
            ) : mine.data.events.length === 0 ? (
              <p className="text-sm text-muted">{emptyTexts.accountEvents}</p>
            ) : (
              <ul className="grid gap-1.5">
                {mine.data.events.map((e) => (
                  <li key={e.id} className="flex flex-wrap items-center gap-2 text-sm">
                    <SeverityBadge severity={e.severity} />
                    <span className="capitalize">{words(e.type)}</span>
                    {e.count > 1 ? <span className="text-muted">×{e.count}</span> : null}
                    <span className="ml-auto text-xs text-muted">{formatDateTime(e.lastSeen)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
          <section aria-label="Browser detections" className="grid gap-2">
            <h3 className="text-sm font-medium text-muted">This browser</h3>
            {detections.length === 0 ? (
              <p className="text-sm text-muted">{emptyTexts.browserDetections}</p>
            ) : (
              <ul className="grid gap-1.5">
                {detections.map((d, i) => (
                  <li key={`${d.timestamp}-${i}`} className="flex flex-wrap items-center gap-2 text-sm">
                    <SeverityBadge severity={d.severity} />
                    <span>{d.description}</span>
                    <span className="ml-auto text-xs text-muted">{formatTime(d.timestamp)}</span>
                  </li>
                ))}
              </ul>
            )}
          </section>
        </CardContent>
      </Card>
      <Card>
        <CardHeader>
          <CardTitle className="flex items-center gap-2">
            <Gavel className="size-5 text-accent" aria-hidden="true" /> Breach policy
          </CardTitle>
        </CardHeader>
        <CardContent>
          <p aria-label="Breach policy" className="text-sm">
            {mine.data ? breachPolicyTexts[mine.data.breachPolicy] : mine.error ? emptyTexts.loadFailed : 'Loading…'}
          </p>
        </CardContent>
      </Card>
    </div>
  );
}
