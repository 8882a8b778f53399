import { createInterface } from 'node:readline';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { KeyRegistry, VOICE_SCOPES } from '../simulator/service/accounts.js';
import { startSimulator } from '../simulator/server.js';

/**
 * The simulator alone in its own process, as `npm run simulator` runs it, for the proxy and capacity parts of
 * the bench: one account whose active-call ceiling and key quota sit far above the load, so the figures are
 * the work and never a `429`. Listens on a free loopback port and prints `simulator on <url>`; a line `cpu` on
 * stdin prints `cpu <seconds>`, the CPU it has used so far. Stops on SIGTERM or when its parent's pipe to
 * stdin closes, so it never outlives the bench.
 */

const registry = KeyRegistry.fromScopes(new Map([[DEFAULT_SIM_API_KEY, { scopes: VOICE_SCOPES }]]), { id: 'acct_bench', maxActiveCalls: 10_000 });
const simulator = await startSimulator({
  apiKey: DEFAULT_SIM_API_KEY,
  port: 0,
  // The bench's browsers pair on loopback by their switches, as the e2e suite's.
  mediaAddresses: 'loopback',
  // BENCH_SIM_QUOTA_PER_MINUTE gives the key a real quota instead (the budget part: 1,200 a minute).
  quota: { perMinute: Number(process.env.BENCH_SIM_QUOTA_PER_MINUTE ?? 100_000_000), perHour: 1_000_000_000 },
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
createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    console.log(`cpu ${(user + system) / 1e6}`);
  })
  .on('close', stop);
