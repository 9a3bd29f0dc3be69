import { useSyncExternalStore } from 'react';
import { dismissToast, getToasts, subscribeToasts, toast, type ToastItem } from './toast-store';

export type { ToastInput, ToastTone } from './toast-store';

/** The visible toasts plus the functions to raise and dismiss one. */
export function useToast(): { toasts: ToastItem[]; toast: typeof toast; dismiss: typeof dismissToast } {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts);
  return { toasts, toast, dismiss: dismissToast };
}
