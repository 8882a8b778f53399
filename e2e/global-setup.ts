import { startApp } from '../scripts/start-app.js';

/**
 * The simulator's key for the suite, set here rather than taken from the shell (where a user of
 * `npm run simulator` may have exported another): `vsk_` plus 32 letters or digits (spec 5.2).
 */
const SIM_API_KEY = 'vsk_E2eSuiteSimulatorKey000000000000';

/**
 * Starts the app exactly as `npm start` runs it, once for the suite, and hands the URLs and the simulator's
 * key to the tests through the environment (`E2E_*`). The returned teardown stops it by PID.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  // One key serves every spec's user: the suite gets a quota above spec 8's default (tested in test/simulator).
  // +12025550103 rings 3 s rather than 8 and +12025550107 stays unknown 4 s rather than 10: the same behaviour,
  // with room to watch the state before it ends (as +12025550101's 3 s of ringing), in less of the suite's time.
  // A queued caller claimed by a page that does not answer goes back after 5 s rather than 20 (queues.spec.ts),
  // still far beyond the second a page that answers takes.
  const app = await startApp({
    SIM_API_KEY,
    SIM_QUOTA_PER_MINUTE: '100000',
    SIM_QUOTA_PER_HOUR: '1000000',
    SIM_NO_ANSWER_MS: '3000',
    SIM_OUTCOME_UNKNOWN_MS: '4000',
    SIM_QUEUE_ANSWER_TIMEOUT_MS: '5000',
  });
  process.env.E2E_BASE_URL = app.demo;
  process.env.E2E_SIM_URL = app.sim;
  process.env.E2E_SIM_API_KEY = SIM_API_KEY;
  return app.stop;
}
