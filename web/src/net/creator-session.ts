/**
 * The creator's master key for this tab, in memory only: never in localStorage, sessionStorage or
 * IndexedDB (docs/security.md §8: the key stays out of persistent browser storage). A reload or a
 * new tab asks for it again.
 */
let masterKey: string | null = null;
const listeners = new Set<() => void>();

export function setMasterKey(key: string | null): void {
  masterKey = key;
  for (const l of listeners) l();
}

export function getMasterKey(): string | null {
  return masterKey;
}

/** For useSyncExternalStore. */
export function subscribeMasterKey(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The header that presents a master key (the one held, or a candidate being checked). */
export function masterKeyHeader(key: string): Record<string, string> {
  return { Authorization: `SuperAdmin ${key}` };
}

/** The header creator calls carry; empty when no key is held. */
export function creatorHeaders(): Record<string, string> {
  return masterKey ? masterKeyHeader(masterKey) : {};
}
