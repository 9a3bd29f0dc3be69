import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'web/src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['server/src/**/*.test.ts'],
          // PGlite and PostgreSQL suites share one database per file; keep files in sequence
          // so two cores are not fighting over several 1 GB PGlite instances.
          fileParallelism: false,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          // Faults with real processes: the built server (npm run build -w server) killed,
          // drained, and its PostgreSQL and Redis restarted. Private PostgreSQL and Redis servers,
          // so one file at a time, one test at a time.
          name: 'faults',
          include: ['server/faults/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
          // A poll waits for something that must happen ("the three sends reach the lock"), not
          // for how fast: vitest's 1 s default is too short for a CI machine under load.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});
