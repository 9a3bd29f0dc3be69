/** The words of disappearing messages: timer names and the timeline's announcements (pure, unit-tested). */
import { limits, type DisappearingTimer, type TimelineEvent } from '@enclave/protocol';

const TIMER_NAMES: Record<DisappearingTimer, string> = { 0: 'Off', 3600: '1 hour', 86_400: '1 day', 604_800: '1 week' };

/** The timers offered, in order, with their names. */
export const TIMER_CHOICES = limits.disappearingTimers.map((seconds) => ({ seconds, name: TIMER_NAMES[seconds] }));

export function timerName(seconds: DisappearingTimer): string {
  return TIMER_NAMES[seconds];
}

/** What a timeline event says, `actor` being its author's name ("You" for the member's own). */
export function eventText(event: TimelineEvent['event'], actor: string, own: boolean): string {
  if (event.kind === 'message_deleted') return own ? 'You deleted this message' : 'This message was deleted';
  if (event.seconds === 0) return `${actor} turned off disappearing messages`;
  return `${actor} set disappearing messages to ${TIMER_NAMES[event.seconds]}`;
}
