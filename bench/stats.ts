/**
 * The few statistics and the table the bench prints: order statistics over samples, nothing estimated.
 */

/** The value at quantile `q` (0-1) of the samples, nearest rank. */
export function quantile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export interface Spread {
  median: number;
  p95: number;
  runs: number;
}

export function spread(samples: readonly number[]): Spread {
  return { median: quantile(samples, 0.5), p95: quantile(samples, 0.95), runs: samples.length };
}

/** One row of the printed table: what, our figure, the target or the peer it is held against. */
export interface Row {
  figure: string;
  value: string;
  target: string;
  /** true: meets the target; false: misses it; undefined: no target (a peer figure). */
  met?: boolean;
}

export function printTable(rows: readonly Row[]): void {
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => [r.figure, r.value, r.target][i]?.length ?? 0), 6));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(['figure', 'value', 'target']) + '  ok');
  console.log(widths.map((w) => '-'.repeat(w)).join('  ') + '  --');
  for (const row of rows) console.log(line([row.figure, row.value, row.target]) + (row.met === undefined ? '' : row.met ? '  yes' : '  NO'));
}

export const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;
export const ms = (value: number): string => `${value.toFixed(0)} ms`;

/**
 * Run `run`'s wait before it starts: spread over `overMs`, in an order that does not rise with the runs, so a
 * figure does not ride on a timer's phase.
 */
export const staggerMs = (run: number, overMs = 1000) => ((run * 373) % 1000) * (overMs / 1000);
