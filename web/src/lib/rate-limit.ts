/**
 * The specification's client-side attempt limit (docs/spec.md §5): at most `max` attempts per
 * `windowMs` per action key, remembered as lists of timestamps in localStorage. The server enforces
 * the real limit; this is a courtesy that spares the member a round trip and keeps the specified
 * message.
 */
export type RateLimitStorage = Pick<Storage, 'getItem' | 'setItem'>;

export type RateLimitOptions = {
  max: number;
  windowMs: number;
  storage?: RateLimitStorage | undefined;
  now?: () => number;
};

const prefix = 'enclave.rateLimit.';

/** Storage key under which the timestamps of one action are kept. */
export function rateLimitStorageKey(action: string): string {
  return prefix + action;
}

function readTimestamps(storage: RateLimitStorage, action: string): number[] {
  const raw = storage.getItem(rateLimitStorageKey(action));
  if (raw === null) return [];
  try {
    const parsed: unknown = JSON.parse(raw);
    return Array.isArray(parsed) ? parsed.filter((t): t is number => typeof t === 'number' && Number.isFinite(t)) : [];
  } catch {
    // A corrupted record only loses old timestamps; it must not lock the member out.
    return [];
  }
}

/**
 * Records an attempt of `action` and says whether it is allowed. A refused attempt is not
 * recorded, so waiting out the window always unblocks.
 *
 * @example
 * if (!recordAttempt('ui_login', { max: 5, windowMs: 60_000 })) showBlockedToast();
 */
export function recordAttempt(action: string, options: RateLimitOptions): boolean {
  const storage = options.storage ?? globalThis.localStorage;
  const now = (options.now ?? Date.now)();
  const recent = readTimestamps(storage, action).filter((t) => now - t < options.windowMs && t <= now);
  if (recent.length >= options.max) {
    storage.setItem(rateLimitStorageKey(action), JSON.stringify(recent));
    return false;
  }
  recent.push(now);
  storage.setItem(rateLimitStorageKey(action), JSON.stringify(recent));
  return true;
}
