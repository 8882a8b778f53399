import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { startApp } from '../scripts/start-app.js';
import { openBenchPage, type BenchPage } from './browser.js';
import { measureLatency } from './latency.js';
import { machineCpuSeconds } from './machine.js';
import { measureProxy } from './proxy.js';
import { measureSimulator } from './simulator.js';
import { measureSize } from './size.js';
import { measureSoak } from './soak.js';
import { printTable, type Row } from './stats.js';

/**
 * `npm run bench`: one table of our figures beside the targets of DESIGN.md and the peers, also written as
 * JSON under bench/results/ (ignored by git). Nothing here is a test: it measures and prints. A part that
 * fails becomes a row saying so, and the others still run; the exit code is then 1.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SOAK_CYCLES = Number(process.env.BENCH_SOAK_CYCLES ?? 300);
const only = new Set((process.env.BENCH_ONLY || 'size,latency,proxy,simulator,soak').split(','));

const rows: Row[] = [];
const results: Record<string, unknown> = { at: new Date().toISOString(), runs: RUNS, seconds: {}, stolen: {} };
/** Per part, the share of the machine's CPU the hypervisor gave other guests: this VM's neighbours. */
const stolen: Record<string, number> = {};
let failed = false;

/** Runs one part if BENCH_ONLY names it: its rows and figures kept, its time told, its failure a row. */
async function part(name: string, measure: () => Promise<{ rows: Row[]; figures: unknown }>): Promise<void> {
  if (!only.has(name)) return;
  const started = Date.now();
  const machineAt = machineCpuSeconds();
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
  const seconds = (Date.now() - started) / 1000;
  (results.seconds as Record<string, number>)[name] = seconds;
  stolen[name] = (machineCpuSeconds().steal - machineAt.steal) / seconds / availableParallelism();
  process.stderr.write(`bench: ${name} took ${seconds.toFixed(0)} s (${(100 * stolen[name]).toFixed(0)} % of the CPU stolen)\n`);
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

await part('size', measureSize);
await part('latency', () => inBrowser('bench-latency', (page, sim) => measureLatency(page, sim, RUNS)));
await part('proxy', measureProxy);
await part('simulator', measureSimulator);
await part('soak', () => inBrowser('bench-soak', (page) => measureSoak(page, SOAK_CYCLES)));

rows.push({
  figure: 'machine: CPU stolen by the hypervisor',
  value: Object.entries(stolen).map(([name, share]) => `${name} ${(100 * share).toFixed(0)} %`).join(', '),
  target: 'near 0 for steady figures',
});
results.stolen = stolen;
printTable(rows);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${results.at as string}.json`.replace(/:/g, '-');
writeFileSync(file, JSON.stringify({ ...results, rows }, null, 2));
console.log(`\nwritten to ${file}`);
if (failed) process.exitCode = 1;
