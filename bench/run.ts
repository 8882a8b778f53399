import { mkdirSync, writeFileSync } from 'node:fs';
import { startApp } from '../scripts/start-app.js';
import { openBenchPage, type BenchPage } from './browser.js';
import { measureLatency } from './latency.js';
import { measureProxy } from './proxy.js';
import { measureSimulator } from './simulator.js';
import { measureSize } from './size.js';
import { measureSoak } from './soak.js';
import { printTable, type Row } from './stats.js';

/**
 * `npm run bench`: one table of our figures beside the targets of DESIGN.md and the peers, also written as
 * JSON under bench/results/ (ignored by git). Nothing here is a test: it measures and prints.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SOAK_CYCLES = Number(process.env.BENCH_SOAK_CYCLES ?? 300);
const only = new Set((process.env.BENCH_ONLY ?? 'size,latency,proxy,simulator,soak').split(','));

const rows: Row[] = [];
const results: Record<string, unknown> = { at: new Date().toISOString(), runs: RUNS };

if (only.has('size')) {
  const size = await measureSize();
  rows.push(...size.rows);
  results.size = size.figures;
}

/** Runs `measure` with the app and a fresh Chromium page, and stops both whatever happens. */
async function inBrowser<T>(user: string, measure: (page: BenchPage, simUrl: string) => Promise<T>): Promise<T> {
  // The bench's users make far more requests than spec 8's default quota allows a key.
  const app = await startApp({ SIM_QUOTA_PER_MINUTE: '10000000', SIM_QUOTA_PER_HOUR: '100000000' });
  try {
    const page = await openBenchPage(app.demo, user);
    try {
      return await measure(page, app.sim);
    } finally {
      await page.close();
    }
  } finally {
    await app.stop();
  }
}

if (only.has('latency')) {
  const latency = await inBrowser('bench-latency', (page, sim) => measureLatency(page, sim, RUNS));
  rows.push(...latency.rows);
  results.latency = latency.figures;
}

if (only.has('proxy')) {
  const proxy = await measureProxy();
  rows.push(...proxy.rows);
  results.proxy = proxy.figures;
}

if (only.has('simulator')) {
  const simulator = await measureSimulator();
  rows.push(...simulator.rows);
  results.simulator = simulator.figures;
}

if (only.has('soak')) {
  const soak = await inBrowser('bench-soak', (page) => measureSoak(page, SOAK_CYCLES));
  rows.push(...soak.rows);
  results.soak = soak.figures;
}

printTable(rows);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${results.at as string}.json`.replace(/:/g, '-');
writeFileSync(file, JSON.stringify({ ...results, rows }, null, 2));
console.log(`\nwritten to ${file}`);
