import type { LiveEvent, Severity } from '@enclave/protocol';
import { ChevronDown, ChevronRight, ShieldBan } from 'lucide-react';
import { useId, useState } from 'react';
import { Badge } from '../components/ui/Badge';
import { Button } from '../components/ui/Button';
import { cn } from '../lib/cn';
import { formatDateTime, formatTime } from '../lib/format';
import { monitorTexts as t } from './advanced-security-texts';
import { SeverityTag } from './SeverityTag';
import { detailEntries, ipParts, nonEmptyHeaders, nameLabel } from './threat-model';

const cardEdge: Record<Severity, string> = {
  critical: 'border-l-red-500',
  high: 'border-l-orange-500',
  medium: 'border-l-amber-500',
  low: 'border-l-sky-500',
};

type LiveEventCardProps = {
  event: LiveEvent;
  /** Its client address is blocked now. */
  blocked: boolean;
  /** A block of its client address is on its way. */
  blocking: boolean;
  onBlock: (ip: string) => void;
};

/**
 * One live security event (docs/spec.md §2): severity, type, time, details, IP analysis. Its
 * obfuscation status is the network's, the same for every event: shown once (ObfuscationStatus).
 */
export function LiveEventCard({ event, blocked, blocking, onBlock }: LiveEventCardProps) {
  const titleId = useId();
  const details = detailEntries(event.details);
  return (
    <li
      aria-labelledby={titleId}
      className={cn('grid gap-3 rounded-lg border border-l-4 border-border bg-surface-raised/40 p-4', cardEdge[event.severity])}
      data-event-id={event.id}
      data-event-type={event.type}
    >
      <div className="flex flex-wrap items-center gap-2">
        <SeverityTag severity={event.severity} />
        <h4 id={titleId} className="font-semibold">
          {nameLabel(event.type)}
        </h4>
        {event.count > 1 ? <Badge data-count={event.count}>{t.count(event.count)}</Badge> : null}
        <span className="ml-auto text-xs text-muted tabular-nums">
          {event.count > 1 ? (
            <>
              {t.first}{' '}
              <time dateTime={event.timestamp} title={formatDateTime(event.timestamp)}>
                {formatTime(Date.parse(event.timestamp))}
              </time>{' '}
              · {t.last}{' '}
              <time dateTime={event.lastSeen} title={formatDateTime(event.lastSeen)}>
                {formatTime(Date.parse(event.lastSeen))}
              </time>
            </>
          ) : (
            <time dateTime={event.timestamp} title={formatDateTime(event.timestamp)}>
              {formatTime(Date.parse(event.timestamp))}
            </time>
          )}
        </span>
      </div>

      {event.username || event.actor || details.length ? (
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-sm" data-details>
          {event.username ? <Detail name={t.member} value={event.username} /> : null}
          {event.actor ? <Detail name={t.actor} value={event.actor} /> : null}
          {details.map(([name, value]) => (
            <Detail key={name} name={name} value={value} />
          ))}
        </dl>
      ) : null}

      <IpAnalysisBlock event={event} blocked={blocked} blocking={blocking} onBlock={onBlock} />
    </li>
  );
}

function Detail({ name, value }: { name: string; value: string }) {
  return (
    <>
      <dt className="text-muted">{name}</dt>
      <dd className="break-all font-mono text-xs leading-5">{value}</dd>
    </>
  );
}

function IpAnalysisBlock({ event, blocked, blocking, onBlock }: LiveEventCardProps) {
  const [open, setOpen] = useState(false);
  const headersId = useId();
  const ip = event.ipAnalysis;
  const parts = ipParts(ip, t.unknown);
  const headers = nonEmptyHeaders(ip.headers);
  // The creator's own actions come from the creator's own address: no button to shut it out.
  const client = event.actor === 'creator' ? null : ip.clientIP;
  return (
    <div className="grid content-start gap-2 rounded-md border border-border bg-background/50 p-3" data-ip-analysis>
      <div className="flex items-center justify-between gap-2">
        <p className="text-xs font-semibold uppercase tracking-wider text-muted">{t.ipAnalysis}</p>
        {client ? (
          <Button
            size="sm"
            variant="outline"
            className="h-7 border-red-500/50 text-red-300 hover:bg-red-500/15"
            disabled={blocked || blocking}
            aria-label={t.blockLabel(client)}
            onClick={() => onBlock(client)}
          >
            <ShieldBan aria-hidden="true" /> {blocked ? t.blocked : t.blockIp}
          </Button>
        ) : null}
      </div>
      {parts ? (
        <p className="flex flex-wrap items-center gap-x-1.5 text-xs" data-ip-line>
          {parts.map((part, i) => (
            <span key={part.label} className="inline-flex items-center gap-1.5">
              <span className="text-muted">{t[part.label]}:</span>
              <span className={cn('font-mono', part.value === t.unknown && 'text-muted')} data-ip={part.label}>
                {part.value}
              </span>
              {/* The separator ends a part, so that a wrapped line never starts with one. */}
              {i < parts.length - 1 ? (
                <span className="text-muted" aria-hidden="true">
                  |
                </span>
              ) : null}
            </span>
          ))}
          {ip.classification !== 'unknown' ? <Badge className="ml-1">{ip.classification}</Badge> : null}
        </p>
      ) : (
        <p className="text-xs text-muted" data-ip-line>
          {t.noIpData}
        </p>
      )}
      <div>
        <button
          type="button"
          className="inline-flex items-center gap-1 text-xs font-medium text-muted hover:text-foreground"
          aria-expanded={open}
          aria-controls={open ? headersId : undefined}
          onClick={() => setOpen((o) => !o)}
        >
          {open ? <ChevronDown className="size-3.5" aria-hidden="true" /> : <ChevronRight className="size-3.5" aria-hidden="true" />}
          {t.headers} ({headers.length})
        </button>
        {open ? (
          headers.length ? (
            <dl id={headersId} className="mt-1.5 grid max-h-48 grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 overflow-y-auto text-xs" data-headers>
              {headers.map(([name, value]) => (
                <Detail key={name} name={name} value={value} />
              ))}
            </dl>
          ) : (
            <p id={headersId} className="mt-1.5 text-xs text-muted">
              {t.noHeaders}
            </p>
          )
        ) : null}
      </div>
    </div>
  );
}
