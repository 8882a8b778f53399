import { defineConfig } from '@playwright/test';
import { chromiumLaunchOptions } from '@voice-browser/simulator/playwright';

/** Chromium with a fake microphone, every packet on loopback (CHROMIUM_PATH picks the browser, if set). */
export default defineConfig({
  testDir: 'tests',
  timeout: 60_000,
  reporter: 'list',
  use: { browserName: 'chromium', launchOptions: chromiumLaunchOptions() },
});
