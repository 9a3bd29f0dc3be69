/**
 * The toast queue behind {@link useToast}: a tiny external store so any code (not only
 * components) can raise a toast. One toast is visible at a time; a dismissed toast is kept
 * (closed) for the specification's ~1,000,000 ms (docs/spec.md §4) before it is dropped from memory.
 */
export type ToastTone = 'default' | 'success' | 'destructive';

export type ToastInput = { title: string; description?: string; tone?: ToastTone };

export type ToastItem = ToastInput & { id: string; open: boolean };

/** A toast that reports success, for the screens' tables of texts. */
export function successToast(title: string, description: string): ToastInput {
  return { title, description, tone: 'success' };
}

/** A toast that reports a failure or a refusal, for the screens' tables of texts. */
export function failureToast(title: string, description: string): ToastInput {
  return { title, description, tone: 'destructive' };
}

export const TOAST_LIMIT = 1;
export const TOAST_REMOVE_DELAY_MS = 1_000_000;

let toasts: ToastItem[] = [];
let counter = 0;
const listeners = new Set<() => void>();
const removalTimers = new Map<string, ReturnType<typeof setTimeout>>();

function emit(next: ToastItem[]): void {
  toasts = next;
  for (const listener of listeners) listener();
}

function scheduleRemoval(id: string): void {
  if (removalTimers.has(id)) return;
  removalTimers.set(
    id,
    setTimeout(() => {
      removalTimers.delete(id);
      emit(toasts.filter((t) => t.id !== id));
    }, TOAST_REMOVE_DELAY_MS),
  );
}

/** Shows a toast, replacing the one on screen; returns its id. */
export function toast(input: ToastInput): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const id = `toast-${counter}`;
  emit([{ ...input, id, open: true }, ...toasts].slice(0, TOAST_LIMIT));
  return id;
}

/** Closes one toast (or all); it leaves memory later. */
export function dismissToast(id?: string): void {
  for (const t of toasts) if (id === undefined || t.id === id) scheduleRemoval(t.id);
  emit(toasts.map((t) => (id === undefined || t.id === id ? { ...t, open: false } : t)));
}

export function subscribeToasts(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function getToasts(): ToastItem[] {
  return toasts;
}
