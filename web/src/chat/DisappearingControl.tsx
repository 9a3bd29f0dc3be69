import { disappearingTimerSchema, type DisappearingTimer, type TimelineEvent } from '@enclave/protocol';
import { Timer } from 'lucide-react';
import { useId, useState } from 'react';
import { toast } from '../components/ui/toast-store';
import { setDisappearing } from '../net/http';
import { TIMER_CHOICES, timerName } from './disappearing';

type DisappearingControlProps = {
  receiverId: string;
  seconds: DisappearingTimer;
  /** The server decides (admins and the creator's account in the channel); this only spares a refusal. */
  canChange: boolean;
  /** The server's announcement of the change (it also comes as a frame; the store holds it once). */
  onChanged: (event: TimelineEvent) => void;
};

/** The conversation's disappearing-message timer: a choice for who may set it, its name for the others. */
export function DisappearingControl({ receiverId, seconds, canChange, onChanged }: DisappearingControlProps) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const icon = <Timer className="size-4 shrink-0 text-muted" aria-hidden="true" />;
  if (!canChange) {
    return (
      <p className="flex items-center gap-1.5 text-xs text-muted" data-testid="disappearing-timer">
        {icon} Disappearing messages: {timerName(seconds)}
      </p>
    );
  }
  async function change(value: string) {
    const next = disappearingTimerSchema.parse(Number(value));
    setBusy(true);
    try {
      onChanged(await setDisappearing(receiverId, next));
    } catch (error) {
      console.error('could not set the timer', error);
      toast({ title: 'Timer not changed', description: error instanceof Error ? error.message : 'Try again', tone: 'destructive' });
    } finally {
      setBusy(false);
    }
  }
  return (
    <label htmlFor={id} className="flex items-center gap-1.5 text-xs text-muted">
      {icon} Disappearing messages
      <select
        id={id}
        className="rounded-md border border-border bg-surface-raised px-2 py-1 text-xs text-foreground"
        value={seconds}
        disabled={busy}
        onChange={(e) => void change(e.target.value)}
      >
        {TIMER_CHOICES.map((c) => (
          <option key={c.seconds} value={c.seconds}>
            {c.name}
          </option>
        ))}
      </select>
    </label>
  );
}
