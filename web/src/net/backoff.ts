/**
 * Reconnect back-off (docs/architecture.md §3, Reconnecting). Two phases:
 * - fast: right after a healthy connection was lost (a restart, a deploy, a network blip), every
 *   attempt waits a random [250 ms, 1 s], so whenever the server is back each client is back within
 *   1 s of it, and clients dropped together are spread over that second;
 * - slow: after {@link RECONNECT_FAST_ATTEMPTS} failed fast attempts (a server down for long), or
 *   when the server answered but refused (authentication failed, "try again later"), the wait
 *   doubles from [1 s, 2 s] to a ceiling of [5 s, 10 s].
 */
export const RECONNECT_FAST_MIN_MS = 250;
export const RECONNECT_FAST_MAX_MS = 1000;
/** About 19 s of a down server at the fast pace, at least 7.5 s: a restart fits well within it. */
export const RECONNECT_FAST_ATTEMPTS = 30;
export const RECONNECT_MIN_MS = 1000;
export const RECONNECT_MAX_MS = 10_000;

/**
 * Delay before reconnect attempt `attempt` (0 for the first failure since the last authenticated
 * connection).
 *
 * @param random a number in [0, 1), from {@link randomUnit} in the app
 * @param healthy the last connection was authenticated and nothing since was refused by the server
 */
export function reconnectDelay(attempt: number, random: number, healthy = false): number {
  const r = Math.min(Math.max(random, 0), 1);
  if (healthy && attempt < RECONNECT_FAST_ATTEMPTS) {
    return Math.round(RECONNECT_FAST_MIN_MS + (RECONNECT_FAST_MAX_MS - RECONNECT_FAST_MIN_MS) * r);
  }
  const n = Math.max(0, Math.min(healthy ? attempt - RECONNECT_FAST_ATTEMPTS : attempt, 30));
  const cap = Math.min(RECONNECT_MAX_MS, 2 * RECONNECT_MIN_MS * 2 ** n);
  // Equal jitter: half the cap fixed, half random, so a long outage still spreads clients.
  return Math.round(Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_MIN_MS, cap / 2 + (cap / 2) * r)));
}

/** A uniform number in [0, 1) from the platform's CSPRNG. */
export function randomUnit(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return (word[0] ?? 0) / 2 ** 32;
}
