import { defineConfig } from '@playwright/test';
import { CHROMIUM_LAUNCH, FIREFOX_LAUNCH } from './e2e/browsers.js';

/**
 * e2e: the demo in real Chromium and real Firefox ESR with fake media, against the real proxy and simulator.
 * Each project runs one test at a time, and two run at once (Chromium's beside Firefox's, the background-tab
 * spec, which spends minutes with its tab asleep in a Chromium it starts itself, beside either), each worker with
 * an app of its own (fixtures.ts), so no browser meets another's callers, quotas or key changes.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  use: {
    permissions: ['microphone'],
    trace: 'retain-on-failure',
  },
  projects: [
    // The stock browsers' spec runs in a network namespace of its own (playwright.stock.config.ts), never here.
    { name: 'chromium', workers: 1, testIgnore: ['**/background-tab.spec.ts', '**/stock-browser.spec.ts'], use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH } },
    // Chromium's once-a-minute timers and its Page Lifecycle freeze; Firefox has neither (docs/browsers.md).
    { name: 'background', workers: 1, testMatch: '**/background-tab.spec.ts', use: { browserName: 'chromium', launchOptions: CHROMIUM_LAUNCH } },
    {
      name: 'firefox',
      workers: 1,
      use: { browserName: 'firefox', launchOptions: FIREFOX_LAUNCH },
      testIgnore: [
        // Turns back on Chromium's back/forward cache, which Playwright's own switch turns off.
        '**/bfcache.spec.ts',
        '**/background-tab.spec.ts',
        '**/stock-browser.spec.ts',
      ],
    },
  ],
});
