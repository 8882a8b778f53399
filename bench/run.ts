import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { startApp, type RunningApp } from '../scripts/start-app.js';
import { inPage, openBenchPage, type BenchPage } from './browser.js';
import { measureBackground } from './background.js';
import { measureBudget } from './budget.js';
import { measureEdges } from './edges.js';
import { measureFailFast } from './fail-fast.js';
import { measureLatency } from './latency.js';
import { measureMonitor } from './monitor.js';
import { measureNetwork } from './network.js';
import { measureOffers } from './offers.js';
import { measurePackages } from './packages.js';
import { measurePreflight } from './preflight.js';
import { measureProxy } from './proxy.js';
import { measureRecording } from './recording.js';
import { measureQueues } from './queues.js';
import { measureSimulator } from './simulator.js';
import { measureSize } from './size.js';
import { measureSoak } from './soak.js';
import { measureTabs } from './tabs.js';
import { printTable, type Row } from './stats.js';

/**
 * `npm run bench`: the figures users meet, beside docs/bench.md's targets: sizes (`size`), the packages' tarballs and installs (`packages`), latencies in Chromium and
 * Firefox and the poll budget (`latency`), calls that survive the network (`network`), the link behind each SIP edge profile and an edge restart (`edges`), many tabs sharing one phone (`tabs`), a phone tab hidden and throttled behind another (`background`), a support desk's queues (`queues`), callers offered to agents (`offers`), a supervisor listening in (`monitor`), a recording's length against the clocks around it (`recording`), "Test my setup" (`preflight`), the proxy's added latency (`proxy`), how soon the proxy refuses when nobody is there to ask (`fail-fast`), the key's budget under 30 agents (`budget`), the simulator's capacity (`simulator`) and the
 * soak (`soak`). One table, also written as JSON under bench/results/ (ignored by git). It measures and
 * prints; a part that fails becomes a row saying so, the others still run, and the exit code is then 1.
 * `BENCH_ONLY=size,packages,latency,network,tabs,queues,offers,monitor,recording,preflight,proxy,fail-fast,budget,simulator,soak,edges` picks parts; `background` (over 15 min:
 * its leader hidden `BENCH_HIDDEN_MINUTES`, 10 unless set, then a throttled minute before each of its
 * `BENCH_BACKGROUND_RUNS` hidden calls) runs only when named.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SOAK_CYCLES = Number(process.env.BENCH_SOAK_CYCLES ?? 300);
/** Each blackhole run takes some 6 s and each stalled socket some 14 s. */
const NETWORK_RUNS = Number(process.env.BENCH_NETWORK_RUNS ?? 5);
/** Each recording, and each preflight, runs a few seconds. */
const RECORDING_RUNS = Number(process.env.BENCH_RECORDING_RUNS ?? 5);
/** The background part's hidden leader waits this long idle; each of its hidden calls then waits for it to sleep a minute again. */
const HIDDEN_MINUTES = Number(process.env.BENCH_HIDDEN_MINUTES ?? 10);
const BACKGROUND_RUNS = Number(process.env.BENCH_BACKGROUND_RUNS ?? 5);
/** The edge part's restart: this many agents' pages, each a browser context of one Chromium. */
const EDGE_PAGES = Number(process.env.BENCH_EDGE_PAGES ?? 50);
const only = new Set((process.env.BENCH_ONLY || 'size,packages,latency,network,tabs,queues,offers,monitor,recording,preflight,proxy,fail-fast,budget,simulator,soak,edges').split(','));

const rows: Row[] = [];
const results: Record<string, unknown> = { at: new Date().toISOString(), runs: RUNS };
let failed = false;

/** Runs one part if BENCH_ONLY names it: its rows and figures kept, its failure a row. */
async function part(name: string, measure: () => Promise<{ rows: Row[]; figures: unknown }>): Promise<void> {
  if (!only.has(name)) return;
  const started = Date.now();
  process.stderr.write(`bench: ${name}\n`);
  try {
    const measured = await measure();
    rows.push(...measured.rows);
    results[name] = measured.figures;
  } catch (error) {
    failed = true;
    console.error(error);
    rows.push({ figure: `${name}: failed`, value: error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error), target: 'measured', met: false });
  }
  // Other work on this machine moves every figure: the load average says whether there was any.
  process.stderr.write(`bench: ${name} took ${((Date.now() - started) / 1000).toFixed(0)} s, load average ${loadavg()[0]?.toFixed(1)}\n`);
}

/** Runs `measure` against the app, started as `npm start` runs it, and stops the app whatever happens. */
async function withApp<T>(measure: (app: RunningApp) => Promise<T>): Promise<T> {
  // The bench's users make far more requests than spec 8's default quota allows a key.
  const app = await startApp({ SIM_QUOTA_PER_MINUTE: '10000000', SIM_QUOTA_PER_HOUR: '100000000' });
  try {
    return await measure(app);
  } finally {
    await app.stop();
  }
}

/** Runs `measure` with the app and a fresh Chromium page, and stops both whatever happens. */
async function inBrowser<T>(user: string, measure: (page: BenchPage, simUrl: string) => Promise<T>): Promise<T> {
  return withApp(async (app) => {
    const bench = await openBenchPage(app.demo, user);
    return inPage(bench, () => measure(bench, app.sim));
  });
}

await part('size', measureSize);
await part('packages', measurePackages);
// Chromium's page, then Firefox's, against the one app: Firefox is held to Chromium's figures of the same run.
await part('latency', () => withApp((app) => measureLatency((engine) => openBenchPage(app.demo, `bench-latency-${engine}`, engine), app.sim, RUNS)));
await part('network', () => inBrowser('bench-network', (page, sim) => measureNetwork(page, sim, { blackholes: NETWORK_RUNS, stalls: NETWORK_RUNS })));
await part('tabs', () => withApp((app) => measureTabs(app.demo, RUNS * 2)));
await part('background', () => withApp((app) => measureBackground(app.demo, app.sim, BACKGROUND_RUNS, HIDDEN_MINUTES)));
await part('queues', () => measureQueues(RUNS));
await part('offers', () => measureOffers(RUNS));
await part('monitor', () => measureMonitor(RUNS));
await part('recording', () => inBrowser('bench-recording', (page, sim) => measureRecording(page, sim, RECORDING_RUNS)));
await part('preflight', () => inBrowser('bench-preflight', (page) => measurePreflight(page, RECORDING_RUNS)));
await part('proxy', measureProxy);
await part('fail-fast', () => measureFailFast(RUNS));
await part('budget', measureBudget);
await part('simulator', measureSimulator);
await part('edges', () => withApp((app) => measureEdges(app.demo, app.sim, RUNS, EDGE_PAGES)));
await part('soak', () => inBrowser('bench-soak', (page) => measureSoak(page, SOAK_CYCLES)));

printTable(rows);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${results.at as string}.json`.replace(/:/g, '-');
writeFileSync(file, JSON.stringify({ ...results, rows }, null, 2));
console.log(`\nwritten to ${file}`);
if (failed) process.exitCode = 1;
