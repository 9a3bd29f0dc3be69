import { toast, type ToastInput } from './toast-store';

/** Puts `text` on the clipboard and says so, or says how to copy it by hand when the browser refuses. */
export async function copyToClipboard(text: string, toasts: { copied: ToastInput; failed: ToastInput }): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    toast(toasts.copied);
  } catch {
    toast(toasts.failed);
  }
}
