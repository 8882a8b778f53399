import { mkdirSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { CHROMIUM_LAUNCH } from '../e2e/browsers.js';
import { createSimulatorControl } from '../simulator/http/control-client.js';
import { buildChanged } from './build-changed.js';
import { takeTour } from './screenshot-tour.js';
import { startApp } from './start-app.js';

/**
 * `npm run screenshots`: the demo's pictures in docs/demo.md, taken from the demo as it is now. Builds what changed,
 * starts the app as `npm start` does on free ports, walks Chromium (the e2e suite's launch) through the states
 * ({@link takeTour}), saves them to docs/screenshots/, and stops the app by its PID and the browser it launched.
 */

const OUT_DIR = 'docs/screenshots';

await buildChanged(['build:lib', 'build:demo']);
// The tour's supervisor and recording use more of the key than spec 8's default quota serves (the e2e suite's quota).
const app = await startApp({ SIM_QUOTA_PER_MINUTE: '100000', SIM_QUOTA_PER_HOUR: '1000000', LOG_LEVEL: 'error' });
let failed = false;
try {
  const browser = await chromium.launch(CHROMIUM_LAUNCH);
  try {
    mkdirSync(OUT_DIR, { recursive: true });
    await takeTour({ browser, demo: app.demo, simulator: createSimulatorControl(app.sim), outDir: OUT_DIR, saved: (file) => console.log(`saved ${file}`) });
  } finally {
    await browser.close();
  }
} catch (error) {
  failed = true;
  console.error(`screenshots: ${error instanceof Error ? error.message : String(error)}`);
} finally {
  await app.stop();
}
process.exit(failed ? 1 : 0);
