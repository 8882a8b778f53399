import { defineConfig } from '@playwright/test';
import { CHROMIUM_PATH, FIREFOX_PATH } from './e2e/browsers.js';
import { inTestNetwork, TEST_NETWORK } from './scripts/test-network.js';

/**
 * The demo in Chromium and Firefox as a person runs them: nothing but a fake microphone, so no loopback switch,
 * and host candidates hidden behind mDNS names. Run by scripts/e2e-stock.ts inside a network namespace it makes
 * (`npm run test:e2e:stock`), since such a browser gathers on, and multicasts over, the network it finds.
 */
if (!inTestNetwork()) {
  throw new Error(`playwright.stock.config.ts runs only inside its test network (${TEST_NETWORK.subnet}0/24): run it with npm run test:e2e:stock`);
}

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/stock-browser.spec.ts',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  // One engine beside the other, each with an app of its own.
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results/stock',
  use: { trace: 'retain-on-failure' },
  projects: [
    {
      name: 'stock-chromium',
      // Only the fake device and its prompt's answer: no loopback switch, mDNS hiding left on. (Playwright adds
      // its automation switches, none of them about WebRTC's addresses.)
      use: { browserName: 'chromium', launchOptions: { executablePath: CHROMIUM_PATH, args: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream'] } },
    },
    {
      name: 'stock-firefox',
      // Only the fake device and its prompt's answer: no loopback, obfuscation or default-address preferences.
      use: {
        browserName: 'firefox',
        launchOptions: { channel: 'moz-firefox', executablePath: FIREFOX_PATH, firefoxUserPrefs: { 'media.navigator.streams.fake': true, 'media.navigator.permission.disabled': true } },
      },
    },
  ],
});
