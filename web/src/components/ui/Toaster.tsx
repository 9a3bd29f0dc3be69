import * as ToastPrimitive from '@radix-ui/react-toast';
import { limits } from '@enclave/protocol';
import { X } from 'lucide-react';
import { cn } from '../../lib/cn';
import type { ToastTone } from './toast-store';
import { useToast } from './use-toast';

const toneClasses: Record<ToastTone, string> = {
  default: 'border-border bg-surface-raised text-foreground',
  success: 'border-emerald-500/50 bg-emerald-950 text-emerald-50',
  destructive: 'border-red-500/60 bg-red-950 text-red-50',
};

/** The toast area present on every screen (docs/spec.md §9 constants). */
export function Toaster() {
  const { toasts, dismiss } = useToast();
  return (
    <ToastPrimitive.Provider duration={limits.toastDurationMs} swipeDirection="right" swipeThreshold={50}>
      {toasts.map((t) => (
        <ToastPrimitive.Root
          key={t.id}
          // Announced politely: a toast confirms or explains, it never needs to interrupt a screen reader.
          type="background"
          open={t.open}
          onOpenChange={(open) => {
            if (!open) dismiss(t.id);
          }}
          className={cn(
            'group pointer-events-auto relative flex w-full items-start justify-between gap-3 overflow-hidden rounded-lg border p-4 pr-8 shadow-xl',
            'data-[swipe=move]:translate-x-[var(--radix-toast-swipe-move-x)] data-[swipe=cancel]:translate-x-0 data-[swipe=end]:translate-x-[var(--radix-toast-swipe-end-x)]',
            'data-[state=closed]:opacity-0 transition-opacity',
            toneClasses[t.tone ?? 'default'],
          )}
        >
          <div className="grid gap-1">
            <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>
            {t.description ? <ToastPrimitive.Description className="text-sm opacity-90">{t.description}</ToastPrimitive.Description> : null}
          </div>
          <ToastPrimitive.Close aria-label="Close notification" className="absolute right-2 top-2 rounded p-1 opacity-70 hover:opacity-100">
            <X className="size-4" />
          </ToastPrimitive.Close>
        </ToastPrimitive.Root>
      ))}
      {/* Never over the composer (a toast over Send took members' clicks): at the top on phones,
          and from md up at the right just below the screens' headers, whose actions it would
          otherwise hide. */}
      <ToastPrimitive.Viewport
        hotkey={['F8']}
        className="fixed inset-x-0 top-0 z-[100] flex max-h-screen w-full flex-col gap-2 p-3 md:left-auto md:top-16 md:max-w-[420px] md:p-4"
      />
    </ToastPrimitive.Provider>
  );
}
