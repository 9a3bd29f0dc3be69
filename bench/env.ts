/** The benches' settings from the environment. */

/** The whole number > 0 in `process.env[name]`, or `fallback` when it is unset or empty; anything else stops the bench. */
export function positiveEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive whole number, not "${raw}"`);
  return n;
}
