/**
 * The specification's client-side attempt limit (docs/spec.md §5): at most `max` failed attempts
 * per `windowMs` per action key, remembered as lists of timestamps in localStorage. The server enforces
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

function recentFailures(storage: RateLimitStorage, action: string, options: RateLimitOptions, now: number): number[] {
  return readTimestamps(storage, action).filter((t) => now - t < options.windowMs && t <= now);
}

/**
 * Whether `action` may be tried now: fewer than `max` failures within the window. Only failures
 * are recorded ({@link recordFailure}), so a right answer after a few wrong ones always goes
 * through, and waiting out the window always unblocks.
 *
 * @example
 * if (!attemptAllowed('ui_login', opts)) return showBlockedToast();
 * if (!(await signIn())) recordFailure('ui_login', opts);
 */
export function attemptAllowed(action: string, options: RateLimitOptions): boolean {
  const storage = options.storage ?? globalThis.localStorage;
  return recentFailures(storage, action, options, (options.now ?? Date.now)()).length < options.max;
}

/** Records a failed attempt of `action` (and forgets the failures that have left the window). */
export function recordFailure(action: string, options: RateLimitOptions): void {
  const storage = options.storage ?? globalThis.localStorage;
  const now = (options.now ?? Date.now)();
  const recent = recentFailures(storage, action, options, now);
  recent.push(now);
  storage.setItem(rateLimitStorageKey(action), JSON.stringify(recent));
}
