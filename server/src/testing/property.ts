/**
 * Settings and bookkeeping of the property tests (fast-check). One seed per run, printed at the
 * start and in every failure with the failing case's path, so a failure replays exactly:
 *
 *   FC_SEED=<seed> FC_ONLY='<property>' FC_PATH=<path> npm run test:property
 *
 * FC_RUNS is the number of cases per property: small in the integration suite, large in
 * `npm run test:property`. FC_ONLY runs the one property named (its test title).
 */
import { randomInt } from 'node:crypto';
import fc from 'fast-check';

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got ${raw}`);
  return n;
};

export const property = {
  seed: intEnv('FC_SEED', randomInt(0, 2 ** 31)),
  runs: intEnv('FC_RUNS', 2),
  only: process.env.FC_ONLY || undefined,
  path: process.env.FC_PATH || undefined,
};
if (property.path && !property.only) throw new Error('FC_PATH replays one property: set FC_ONLY to its name too');

/**
 * Vitest's time for one property: its cases each have their own request timeout (the "no hang"
 * property), so the test as a whole gets room for every case.
 */
export const propertyTimeout = 30_000 + property.runs * 3_000;

/** Whether a property runs in this run (FC_ONLY narrows to one). */
export const selected = (id: string): boolean => !property.only || property.only === id;

/** Each property's own seed, derived from the run's, so the properties draw different cases. */
function seedOf(id: string): number {
  let h = 0x811c9dc5;
  for (const c of id) h = Math.imul(h ^ c.charCodeAt(0), 0x01000193);
  return (property.seed ^ h) | 0;
}

/** What the run did: cases per property and answers by status, for the summary line. */
export const tally = { cases: 0, properties: 0, statuses: new Map<string, number>(), startedAt: Date.now() };
export function resetTally(): void {
  Object.assign(tally, { cases: 0, properties: 0, statuses: new Map(), startedAt: Date.now() });
}
export const countStatus = (key: string | number) => tally.statuses.set(String(key), (tally.statuses.get(String(key)) ?? 0) + 1);

export function announce(what: string): void {
  console.log(`[property] ${what}: seed ${property.seed}, ${property.runs} cases per property (replay with FC_SEED=${property.seed})`);
}

/** Runs one property; a failure throws with the seed and path that replay it. */
export async function checkProperty<T>(id: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>): Promise<void> {
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
    seed: seedOf(id),
    numRuns: property.runs,
    ...(property.path && property.only === id ? { path: property.path } : {}),
  });
  tally.cases += details.numRuns;
  tally.properties += 1;
  if (details.failed) {
    // Cases carry bodies of megabytes: the report shortens long strings rather than print them whole.
    const short = (_: string, v: unknown) => (typeof v === 'string' && v.length > 300 ? `${v.slice(0, 300)}…(${v.length} characters)` : v);
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(
      `${id} failed after ${details.numRuns + 1} cases (seed ${property.seed}, path ${details.counterexamplePath}, shrunk ${details.numShrinks} times)\n` +
        `Counterexample: ${JSON.stringify(details.counterexample, short)}\n${error.slice(0, 2000)}\n\n` +
        `Replay: FC_SEED=${property.seed} FC_ONLY='${id}' FC_PATH=${details.counterexamplePath ?? ''} npm run test:property`,
    );
  }
}

export function summary(what: string): string {
  const statuses = [...tally.statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}: ${n}`);
  return `[property] ${what}: ${tally.cases} cases in ${tally.properties} properties, ${((Date.now() - tally.startedAt) / 1000).toFixed(1)} s, seed ${property.seed}; answers ${statuses.join(', ')}`;
}
