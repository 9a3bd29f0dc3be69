/**
 * Whether the full-screen breach message replaces the page (docs/spec.md §2: "SECURITY BREACH
 * DETECTED"). A store rather than state, because detectors outside React raise it. Only the
 * screens are replaced: the providers (the socket among them) stay, so a breach frame from the
 * server still arrives while it shows.
 */
import { useSyncExternalStore } from 'react';

let shown = false;
const listeners = new Set<() => void>();

export const breachScreen = {
  show(): void {
    if (shown) return;
    shown = true;
    for (const listener of listeners) listener();
  },
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get: (): boolean => shown,
};

export function useBreachScreen(): boolean {
  return useSyncExternalStore(breachScreen.subscribe, breachScreen.get);
}
