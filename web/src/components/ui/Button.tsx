import { Slot } from '@radix-ui/react-slot';
import type { ButtonHTMLAttributes, Ref } from 'react';
import { cn } from '../../lib/cn';

const variants = {
  primary: 'bg-accent-strong text-black hover:bg-accent disabled:bg-accent-strong/40',
  secondary: 'bg-surface-raised text-foreground border border-border hover:border-accent/60',
  outline: 'border border-border text-foreground hover:bg-surface-raised',
  ghost: 'text-muted hover:text-foreground hover:bg-surface-raised',
  danger: 'bg-red-600 text-white hover:bg-red-500 disabled:bg-red-600/40',
} as const;

const sizes = {
  sm: 'h-8 px-3 text-xs gap-1.5',
  md: 'h-10 px-4 text-sm gap-2',
  lg: 'h-11 px-5 text-base gap-2',
  icon: 'h-9 w-9 p-0',
} as const;

export type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: keyof typeof variants;
  size?: keyof typeof sizes;
  /** Render the child element (a link, say) with the button's look instead of a <button>. */
  asChild?: boolean;
  ref?: Ref<HTMLButtonElement>;
};

export function Button({ variant = 'primary', size = 'md', asChild = false, className, type, ...props }: ButtonProps) {
  const Component = asChild ? Slot : 'button';
  return (
    <Component
      type={asChild ? undefined : (type ?? 'button')}
      className={cn(
        'inline-flex items-center justify-center rounded-md font-medium transition-colors',
        'disabled:cursor-not-allowed disabled:opacity-60 [&_svg]:size-4 [&_svg]:shrink-0',
        variants[variant],
        sizes[size],
        className,
      )}
      {...props}
    />
  );
}
