import type { EmergencyState } from '@enclave/protocol';
import { ShieldOff, Unlock } from 'lucide-react';
import { Button } from '../components/ui/Button';
import { formatDateTime, formatRelative } from '../lib/format';

type EmergencyBannerProps = {
  emergency: EmergencyState;
  lifting: boolean;
  onLift: () => void;
};

/**
 * Shown above everything while the network is in emergency mode. Unbanning belongs to the member
 * list (docs/spec.md §2, "the member list with Ban/Unban"): the banner points there.
 */
export function EmergencyBanner({ emergency, lifting, onLift }: EmergencyBannerProps) {
  return (
    <section
      aria-labelledby="emergency-title"
      data-emergency="active"
      className="flex flex-wrap items-center justify-between gap-4 rounded-xl border border-red-500/70 bg-red-950/60 p-4 shadow-lg shadow-red-950/40"
    >
      <div className="flex items-start gap-3">
        <span className="grid size-10 shrink-0 place-items-center rounded-full bg-red-500/20">
          <ShieldOff className="size-5 animate-pulse text-red-300" aria-hidden="true" />
        </span>
        <div>
          <h2 id="emergency-title" className="text-lg font-semibold text-red-100">
            Emergency mode active
          </h2>
          <p className="text-sm text-red-200/90">
            Since{' '}
            <time dateTime={emergency.since ?? undefined} title={formatDateTime(emergency.since)}>
              {formatRelative(emergency.since)}
            </time>
            . Registration is closed. Members banned by the shutdown stay banned until you unban them in the member list below, one by one
            or all at once.
          </p>
        </div>
      </div>
      <Button variant="danger" disabled={lifting} onClick={onLift}>
        <Unlock aria-hidden="true" /> {lifting ? 'Lifting…' : 'Lift emergency mode'}
      </Button>
    </section>
  );
}
