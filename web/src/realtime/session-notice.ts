/**
 * A notice that must survive the reload to / (why the session ended), kept in sessionStorage for
 * exactly one page load.
 */
import { toast } from '../components/ui/toast-store';

const NOTICE_KEY = 'enclave.notice';

export function leaveNotice(title: string, description: string): void {
  sessionStorage.setItem(NOTICE_KEY, JSON.stringify({ title, description }));
}

/** Shows and forgets the notice left by the previous page, if any. */
export function showPendingNotice(): void {
  const raw = sessionStorage.getItem(NOTICE_KEY);
  if (raw === null) return;
  sessionStorage.removeItem(NOTICE_KEY);
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== 'object' || value === null) return;
    const { title, description } = value as Record<string, unknown>;
    if (typeof title === 'string' && typeof description === 'string') toast({ title, description, tone: 'destructive' });
  } catch {
    // A malformed notice is dropped; it only ever explained a sign-out.
  }
}
