import type { Severity } from '@enclave/protocol';
import { cn } from '../lib/cn';

const style: Record<Severity, string> = {
  critical: 'border-red-500/70 bg-red-500/20 text-red-200',
  high: 'border-orange-500/60 bg-orange-500/15 text-orange-200',
  medium: 'border-amber-500/50 bg-amber-500/10 text-amber-200',
  low: 'border-sky-500/40 bg-sky-500/10 text-sky-200',
};

/** A severity in capitals (docs/spec.md §3: CRITICAL, HIGH, MEDIUM, LOW), coloured by weight. */
export function SeverityTag({ severity }: { severity: Severity }) {
  const text = severity.toUpperCase();
  return (
    <span className={cn('rounded border px-1.5 py-0.5 text-[0.7rem] font-bold tracking-wider', style[severity])} data-severity={text}>
      {text}
    </span>
  );
}
