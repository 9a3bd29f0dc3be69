/** Reconnect back-off: 1 s doubling to a 30 s ceiling. */
export const RECONNECT_MIN_MS = 1000;
export const RECONNECT_MAX_MS = 30_000;

/**
 * Delay before reconnect attempt `attempt` (0 for the first). The doubling base is spread by
 * ±20 % so that clients dropped together by a restart do not all come back in the same instant;
 * the result never leaves [1 s, 30 s].
 *
 * @param random a number in [0, 1), from {@link randomUnit} in the app
 */
export function reconnectDelay(attempt: number, random: number): number {
  const base = Math.min(RECONNECT_MAX_MS, RECONNECT_MIN_MS * 2 ** Math.max(0, Math.min(attempt, 30)));
  const jittered = base * (0.8 + 0.4 * random);
  return Math.round(Math.min(RECONNECT_MAX_MS, Math.max(RECONNECT_MIN_MS, jittered)));
}

/** A uniform number in [0, 1) from the platform's CSPRNG. */
export function randomUnit(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return (word[0] ?? 0) / 2 ** 32;
}
