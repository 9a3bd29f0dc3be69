import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser (docs/architecture.md §6).
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // One migrated empty database, copied for every server of the run (support/data-dir.ts).
  globalSetup: './support/global-setup.ts',
  // Each spec (each test of the creator's stories) starts its own server; two cores cannot run
  // several servers and browsers at once.
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 10_000 },
  retries: 0,
  // The JSON report feeds the one closing line of scripts/test-all.sh.
  reporter: process.env.E2E_JSON_REPORT ? [['list'], ['json', { outputFile: process.env.E2E_JSON_REPORT }]] : 'list',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        // WebRTC host candidates carry the real loopback address instead of an mDNS name nothing here resolves.
        '--disable-features=WebRtcHideLocalIpsWithMdns',
      ],
    },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
