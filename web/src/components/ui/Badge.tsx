import type { HTMLAttributes } from 'react';
import { cn } from '../../lib/cn';

const tones = {
  neutral: 'border-border bg-surface-raised text-muted',
  success: 'border-emerald-500/40 bg-emerald-500/10 text-emerald-300',
  warning: 'border-amber-500/40 bg-amber-500/10 text-amber-300',
  danger: 'border-red-500/40 bg-red-500/10 text-red-300',
  accent: 'border-accent/40 bg-accent/10 text-accent',
} as const;

export type BadgeProps = HTMLAttributes<HTMLSpanElement> & { tone?: keyof typeof tones };

export function Badge({ tone = 'neutral', className, ...props }: BadgeProps) {
  return (
    <span
      className={cn(
        'inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs font-medium [&_svg]:size-3',
        tones[tone],
        className,
      )}
      {...props}
    />
  );
}
