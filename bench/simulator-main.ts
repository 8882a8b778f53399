import { DEFAULT_SIM_API_KEY } from '../server-proxy/config.js';
import { KeyRegistry, VOICE_SCOPES } from '../server-proxy/simulator/accounts.js';
import { startSimulator } from '../server-proxy/simulator/server.js';

/**
 * The simulator alone in its own process, as `npm run simulator` runs it, for the benchmark: one account
 * whose active-call ceiling (50 by default, spec 8) and key quota sit far above the load, so the figures are
 * the work and never a `429`. Listens on a free loopback port, prints `simulator on <url>`, and stops on
 * SIGTERM or when its parent's pipe to stdin closes (the bench died), so it never outlives the bench.
 */

const registry = KeyRegistry.fromScopes(new Map([[DEFAULT_SIM_API_KEY, { scopes: VOICE_SCOPES }]]), { id: 'acct_bench', maxActiveCalls: 10_000 });
const simulator = await startSimulator({
  apiKey: DEFAULT_SIM_API_KEY,
  port: 0,
  quota: { perMinute: 100_000_000, perHour: 1_000_000_000 },
  registry,
});
console.log(`simulator on ${simulator.url}`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void simulator.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.stdin.resume();
