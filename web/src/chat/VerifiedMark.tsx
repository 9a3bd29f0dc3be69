import { ShieldCheck } from 'lucide-react';
import { cn } from '../lib/cn';

/** Shown next to a contact whose current keys the member marked verified (docs/security.md §5). */
export function VerifiedMark({ className }: { className?: string }) {
  return (
    <ShieldCheck className={cn('size-3.5 shrink-0 text-emerald-400', className)} role="img" aria-label="Verified" data-verified-mark />
  );
}
