import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_LAUNCH } from '../e2e/browsers.js';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import { createSimulatorControl, type SimulatorEdgeInput } from '../simulator/http/control-client.js';
import { openBenchPage, setUpTabs, inPage } from './browser.js';
import { callOnce, connectOnce, hangupAndSettle } from './latency.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * The link against each SIP edge the simulator speaks as (docs/simulator.md, "Edge profiles"): `connect()` →
 * `ready` and `startCall()` → `connected` in one Chromium page per profile; then an edge restart with many agents'
 * pages (one Chromium, a browser context per agent, so each is a user of its own): how long until every page is
 * `ready` again, and how many REGISTERs a second the edge meets at the peak of their return.
 */

/** What the bench page puts on `window`, and the REGISTERs its sockets sent (counted here). */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
  __registers: number[];
}

const PROFILES: SimulatorEdgeInput[] = [{ profile: 'kamailio' }, { profile: 'no-crlf-pong' }, { profile: 'asterisk' }, { profile: 'carrier-sbc' }];
/** Past this after the edge is back, a page that is not `ready` counts as never back. */
const BACK_DEADLINE_MS = 120_000;

/** One profile's figures, or why it could not be measured. */
export type ProfileFigures = { connectToReady: Spread; startCallToConnected: Spread } | { failed: string };

/** The restart's figures: pages, how many came back, and when. */
export interface RestartFigures {
  pages: number;
  restartSeconds: number;
  back: number;
  /** From the edge taking sockets again to each page's `ready`, of those that came back. */
  backMedianMs: number;
  backSlowestMs: number;
  /** The most REGISTERs the pages sent in any one second after the restart. */
  peakRegistersPerSecond: number;
  /** REGISTERs the pages sent before the restart: the count that proves the counter counts. */
  registersBefore: number;
}

/** Run in every page first: notes the time of each REGISTER its WebSockets send. */
function countRegisters(): void {
  const times: number[] = [];
  (window as unknown as { __registers: number[] }).__registers = times;
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (this: WebSocket, data: string | ArrayBufferLike | Blob | ArrayBufferView) {
    if (typeof data === 'string' && data.startsWith('REGISTER ')) times.push(Date.now());
    return send.call(this, data);
  };
}

/** `connect()` → ready and `startCall()` → connected, `runs` times each, behind `edge`. */
async function measureProfile(demoUrl: string, simUrl: string, edge: SimulatorEdgeInput, runs: number): Promise<ProfileFigures> {
  await createSimulatorControl(simUrl).setEdge(edge);
  try {
    return await inPage(await openBenchPage(demoUrl, `bench-edge-${edge.profile}`), async (page) => {
      const connects: number[] = [];
      for (let i = 0; i < runs; i++) connects.push(await connectOnce(page));
      await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
      const calls: number[] = [];
      for (let i = 0; i < runs; i++) {
        calls.push((await callOnce(page, '+12025550100')).took);
        await hangupAndSettle(page);
      }
      await page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());
      return { connectToReady: spread(connects), startCallToConnected: spread(calls) };
    });
  } catch (error) {
    return { failed: error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error) };
  } finally {
    await createSimulatorControl(simUrl).setEdge({ profile: 'kamailio' });
  }
}

/** The most entries of sorted `times` within any one second. */
function peakPerSecond(times: number[]): number {
  let peak = 0;
  for (let start = 0, end = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= 1000) start++;
    peak = Math.max(peak, end - start + 1);
  }
  return peak;
}

/** `pages` agents' pages connect; the edge restarts for `seconds`; each page's return to `ready` is timed. */
async function measureRestart(demoUrl: string, simUrl: string, pages: number, seconds: number): Promise<RestartFigures> {
  const browser = await chromium.launch({ ...CHROMIUM_LAUNCH, headless: true });
  try {
    const opened: Page[] = [];
    for (let i = 0; i < pages; i++) {
      const context = await browser.newContext({ baseURL: demoUrl, permissions: ['microphone'] });
      await context.addInitScript(countRegisters);
      const { pages: [page] } = await setUpTabs(context, demoUrl, `bench-edge-restart-${i}-${Date.now()}`, 1);
      if (!page) throw new Error('bench: no page');
      await page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
      opened.push(page);
    }
    const restartedAt = Date.now();
    await createSimulatorControl(simUrl).restartEdge(seconds);
    const backAt = restartedAt + seconds * 1000;
    const returns = await Promise.all(
      opened.map((page) =>
        page
          .evaluate(
            async ({ deadline }) => {
              const { when } = window as unknown as PageGlobals;
              await when((s) => s.connection !== 'ready', 30_000, 'the page to see the edge go');
              return when((s) => s.connection === 'ready', deadline, 'ready again');
            },
            { deadline: seconds * 1000 + BACK_DEADLINE_MS },
          )
          .catch(() => undefined),
      ),
    );
    const sent = (await Promise.all(opened.map((page) => page.evaluate(() => (window as unknown as PageGlobals).__registers)))).flat();
    const registers = sent.filter((at) => at >= restartedAt);
    const back = returns.filter((at): at is number => at !== undefined).map((at) => Math.max(0, at - backAt));
    const times = spread(back);
    return { pages, restartSeconds: seconds, back: back.length, backMedianMs: times.median, backSlowestMs: Math.max(0, ...back), peakRegistersPerSecond: peakPerSecond(registers.sort((a, b) => a - b)), registersBefore: sent.length - registers.length };
  } finally {
    await browser.close();
  }
}

/** The rows: each profile's two latencies, then the restart. */
export async function measureEdges(demoUrl: string, simUrl: string, runs: number, pages: number, seconds = 10): Promise<{ rows: Row[]; figures: { profiles: Record<string, ProfileFigures>; restart: RestartFigures } }> {
  const profiles: Record<string, ProfileFigures> = {};
  const rows: Row[] = [];
  for (const edge of PROFILES) {
    const figures = await measureProfile(demoUrl, simUrl, edge, runs);
    profiles[edge.profile] = figures;
    if ('failed' in figures) rows.push({ figure: `edge ${edge.profile}: connect() → ready, startCall() → connected`, value: `failed: ${figures.failed}`, target: 'measured', met: false });
    else {
      rows.push({ figure: `edge ${edge.profile}: connect() → ready`, value: `${ms(figures.connectToReady.median)} median, ${ms(figures.connectToReady.p95)} p95`, target: 'measured' });
      rows.push({ figure: `edge ${edge.profile}: startCall() → connected`, value: `${ms(figures.startCallToConnected.median)} median, ${ms(figures.startCallToConnected.p95)} p95`, target: 'measured' });
    }
  }
  const restart = await measureRestart(demoUrl, simUrl, pages, seconds);
  rows.push({
    figure: `edge restart of ${seconds} s, ${pages} agents' pages: back to ready after the edge is back`,
    value: `${restart.back} of ${pages} back${restart.back ? `: ${ms(restart.backMedianMs)} median, ${ms(restart.backSlowestMs)} slowest` : ` within ${BACK_DEADLINE_MS / 1000} s`}; ${restart.peakRegistersPerSecond} REGISTERs/s at the peak (${restart.registersBefore} before the restart)`,
    target: 'measured',
    ...(restart.back < pages ? { met: false } : {}),
  });
  return { rows, figures: { profiles, restart } };
}
