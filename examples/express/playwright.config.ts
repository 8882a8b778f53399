import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions, firefoxLaunchOptions } from '@voice-browser/simulator/playwright';

/**
 * The app in Chromium and in Firefox, each with a fake microphone and every packet on loopback
 * (CHROMIUM_PATH and FIREFOX_PATH pick the browsers, if set).
 */
export default defineConfig({
  testDir: 'tests',
  timeout: 60_000,
  reporter: 'list',
  projects: [
    { name: 'chromium', use: { browserName: 'chromium', launchOptions: chromiumLaunchOptions() } },
    { name: 'firefox', use: { browserName: 'firefox', launchOptions: firefoxLaunchOptions() } },
  ],
});
