import { defineConfig } from '@playwright/test';

/** Debian's Chromium, never a downloaded browser. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** The specs that use the one server global setup starts: one at a time, never beside each other. */
const ON_THE_SHARED_SERVER = ['foundation.spec.ts', 'bundle-budget.spec.ts', 'banner-render.spec.ts'];

export default defineConfig({
  testDir: './tests',
  globalSetup: './support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  // Two spec files at once on two cores: each other spec starts its own Moat (its own port, data
  // folder and in-memory counters), so two never share a server's state.
  workers: 2,
  projects: [
    { name: 'shared-server', testMatch: ON_THE_SHARED_SERVER, workers: 1 },
    { name: 'own-server', testIgnore: ON_THE_SHARED_SERVER },
  ],
  retries: 0,
  forbidOnly: true,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    browserName: 'chromium',
    headless: true,
    launchOptions: { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS },
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
