import { defineConfig } from '@playwright/test';

// Debian's Chromium, never a downloaded browser (TOOLCHAIN.md).
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Each spec starts its own server; two cores cannot run several servers and browsers at once.
  workers: 1,
  timeout: 120_000,
  expect: { timeout: 10_000 },
  retries: 0,
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
      ],
    },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
