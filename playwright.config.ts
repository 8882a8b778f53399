import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH, FIREFOX_LAUNCH } from './e2e/browsers.js';

/**
 * e2e: the demo in real Chromium and real Firefox ESR with fake media, against the real proxy and simulator.
 * The projects run one after the other, one test at a time, each browser's worker with an app of its own
 * (fixtures.ts), so neither meets the other's callers, quotas or key changes.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    permissions: ['microphone'],
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH } },
    {
      name: 'firefox',
      use: { browserName: 'firefox', launchOptions: FIREFOX_LAUNCH },
      testIgnore: [
        // Turns back on Chromium's back/forward cache, which Playwright's own switch turns off.
        '**/bfcache.spec.ts',
        // Chromium's once-a-minute timers and its Page Lifecycle freeze; Firefox has neither (docs/browsers.md).
        '**/background-tab.spec.ts',
      ],
    },
  ],
});
