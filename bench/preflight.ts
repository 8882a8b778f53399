import type { PreflightReport, VoiceBrowser } from '../lib/index.js';
import type { BenchPage } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * "Test my setup" as a page runs it (`preflight()`): the microphone, a session of its
 * own, a short call to +12025550100 (a tone, then the page's microphone echoed) and the cleanup, `runs` times on
 * one page whose own helper stays disconnected. How long each takes, from the call of `preflight()` to its
 * verdict (the report's `durationMs`), and which verdicts came: the signalling's and the media's warnings are
 * times, so a busy machine turns `ok` into `warning`.
 */

/** What the bench page puts on `window`. */
interface PageGlobals {
  voice: VoiceBrowser;
}

export interface PreflightFigures {
  /** From `preflight()` to its verdict, cleanup included. */
  duration: Spread;
  /** How many runs gave each verdict. */
  verdicts: Record<PreflightReport['verdict'], number>;
  /**
   * The test call's score and loss on loopback, as its quality sample reads them (the e2e asserts only that they
   * are read: a busy machine's jitter lowers the score).
   */
  mos: Spread;
  lossPercent: Spread;
}

export async function measurePreflight(bench: BenchPage, runs: number): Promise<{ figures: PreflightFigures; rows: Row[] }> {
  const durations: number[] = [];
  const scores: number[] = [];
  const losses: number[] = [];
  const verdicts: PreflightFigures['verdicts'] = { ok: 0, warning: 0, failed: 0 };
  for (let i = 0; i < runs; i++) {
    const report = await bench.page.evaluate(() => (window as unknown as PageGlobals).voice.preflight({ from: '+12025550199', to: '+12025550100' }));
    durations.push(report.durationMs);
    verdicts[report.verdict] += 1;
    if (report.media.mos !== null) scores.push(report.media.mos);
    if (report.media.lossPercent !== null) losses.push(report.media.lossPercent);
  }
  const figures = { duration: spread(durations), verdicts, mos: spread(scores), lossPercent: spread(losses) };
  return {
    figures,
    rows: [
      {
        figure: '`preflight()` → its verdict (median)',
        value: `${ms(figures.duration.median)} (p95 ${ms(figures.duration.p95)}, ${runs} runs: ${verdicts.ok} ok, ${verdicts.warning} warning, ${verdicts.failed} failed)`,
        target: '< 10 s, every verdict ok',
        met: figures.duration.p95 < 10_000 && verdicts.ok === runs,
      },
      {
        figure: "`preflight()`'s test call on loopback: MOS, loss (median)",
        value: `MOS ${figures.mos.median.toFixed(2)} (lowest ${Math.min(...scores).toFixed(2)}), loss ${figures.lossPercent.median} % (most ${Math.max(...losses)} %), ${scores.length} of ${runs} runs scored`,
        target: 'MOS > 4, loss 0 %',
        met: scores.length === runs && Math.min(...scores) > 4 && Math.max(...losses) === 0,
      },
    ],
  };
}
