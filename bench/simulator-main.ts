import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { KeyRegistry, VOICE_SCOPES } from '../simulator/accounts.js';
import { startSimulator } from '../simulator/server.js';

/**
 * The simulator alone in its own process, as `npm run simulator` runs it, for the benchmark: one account
 * whose active-call ceiling (50 by default, spec 8) and key quota sit far above the load, so the figures are
 * the work and never a `429`. Listens on a free loopback port, prints `simulator on <url>`, and stops on
 * SIGTERM or when its parent's pipe to stdin closes (the bench died), so it never outlives the bench.
 *
 * @remarks
 * It also watches its own event-loop delay, which every REST answer and SIP message waits behind: a line
 * `loop-reset` on stdin starts a window, `loop-report` prints `loop <p50> <p99> <max>` in ms, beyond the
 * sampling interval (Node's histogram records the whole interval between two samples).
 */

const registry = KeyRegistry.fromScopes(new Map([[DEFAULT_SIM_API_KEY, { scopes: VOICE_SCOPES }]]), { id: 'acct_bench', maxActiveCalls: 10_000 });
const simulator = await startSimulator({
  apiKey: DEFAULT_SIM_API_KEY,
  port: 0,
  quota: { perMinute: 100_000_000, perHour: 1_000_000_000 },
  registry,
});
console.log(`simulator on ${simulator.url}`);

const SAMPLE_MS = 10;
const loop = monitorEventLoopDelay({ resolution: SAMPLE_MS });
loop.enable();

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  loop.disable();
  void simulator.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line === 'loop-reset') loop.reset();
    if (line === 'loop-report') console.log(`loop ${[loop.percentile(50), loop.percentile(99), loop.max].map((ns) => Math.max(0, ns / 1e6 - SAMPLE_MS).toFixed(2)).join(' ')}`);
  })
  .on('close', stop);
