import { mkdirSync, writeFileSync } from 'node:fs';
import { startApp } from '../scripts/start-app.js';
import { openBenchPage } from './browser.js';
import { measureLatency } from './latency.js';
import { measureSize } from './size.js';
import { printTable, type Row } from './stats.js';

/**
 * `npm run bench`: one table of our figures beside the targets of DESIGN.md and the peers, also written as
 * JSON under bench/results/ (ignored by git). Nothing here is a test: it measures and prints.
 */

const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const only = new Set((process.env.BENCH_ONLY ?? 'size,latency').split(','));

const rows: Row[] = [];
const results: Record<string, unknown> = { at: new Date().toISOString(), runs: RUNS };

if (only.has('size')) {
  const size = await measureSize();
  rows.push(...size.rows);
  results.size = size.figures;
}

if (only.has('latency')) {
  // The bench's one user makes far more requests than spec 8's default quota allows a key.
  const app = await startApp({ SIM_QUOTA_PER_MINUTE: '10000000', SIM_QUOTA_PER_HOUR: '100000000' });
  try {
    const page = await openBenchPage(app.demo, 'bench-latency');
    try {
      const latency = await measureLatency(page, app.sim, RUNS);
      rows.push(...latency.rows);
      results.latency = latency.figures;
    } finally {
      await page.close();
    }
  } finally {
    await app.stop();
  }
}

printTable(rows);
mkdirSync('bench/results', { recursive: true });
const file = `bench/results/bench-${results.at as string}.json`.replace(/:/g, '-');
writeFileSync(file, JSON.stringify({ ...results, rows }, null, 2));
console.log(`\nwritten to ${file}`);
