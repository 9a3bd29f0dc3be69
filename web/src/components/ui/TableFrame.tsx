import type { HTMLAttributes } from 'react';
import { cn } from '../../lib/cn';

/**
 * A table's frame: on a narrow screen the table scrolls sideways inside it, never the page.
 * Focusable, so the keyboard can scroll it too; `relative`, so absolutely placed content (the
 * sr-only header labels) is clipped with the table instead of widening the page.
 */
export function TableFrame({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div tabIndex={0} className={cn('relative overflow-x-auto', className)} {...props} />;
}
