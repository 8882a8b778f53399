import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import type { VoiceBrowser, VoiceBrowserStatus } from '../lib/index.js';
import type { BenchPage } from './browser.js';
import { ms, spread, type Row, type Spread } from './stats.js';

/**
 * Calls that survive the network (docs/bench.md): a call's media path lost for 5 s (the simulator's
 * `media-blackhole`), from the moment the network returns to the page's audio reaching the simulator again on
 * the same call, and from the blackhole's start to the page's `no_inbound_audio` warning; and a SIP socket that stalls without closing (`stall-sip-socket`), from the stall to the page
 * showing `reconnecting`. In Chromium against the app on loopback, as a page using the library meets them.
 */

/** What the bench page puts on `window`. */
interface PageGlobals {
  voice: VoiceBrowser;
  when(test: (status: VoiceBrowserStatus) => boolean, timeoutMs?: number, what?: string): Promise<number>;
}

export interface NetworkFigures {
  /** From the end of a 5 s blackhole to the first new packet of the page's audio at the simulator. */
  blackholeToAudio: Spread;
  /** From the start of a blackhole to `no_inbound_audio` in the page's status. */
  blackholeToWarning: Spread;
  /** From the socket's stall to `reconnecting` on the page. */
  stallToReconnecting: Spread;
}

const BLACKHOLE_MS = 5000;

/** Packets of the page's audio the simulator received on `callId`. */
async function fromPage(simUrl: string, callId: string): Promise<number> {
  const { media } = (await (await fetch(`${simUrl}/__sim/calls/${callId}`)).json()) as { media: { packetsFromBrowser: number } | null };
  return media?.packetsFromBrowser ?? 0;
}

/** Arms `fault` on the next read of `path` and makes that read with the simulator's key; resolves when it answered. */
async function armAndTrigger(simUrl: string, path: string, fault: Record<string, unknown>): Promise<number> {
  const armed = await fetch(`${simUrl}/__sim/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method: 'GET', path: `/api/v1/voice/${path.replace(/[^/]+$/, ':id')}`, ...fault }),
  });
  if (armed.status !== 201) throw new Error(`bench: arming ${String(fault.fault)} answered ${armed.status}`);
  const read = await fetch(`${simUrl}/api/v1/voice/${path}`, { headers: { 'x-api-key': DEFAULT_SIM_API_KEY } });
  if (read.status !== 200) throw new Error(`bench: the read that triggers ${String(fault.fault)} answered ${read.status}`);
  return Date.now();
}

/**
 * One blackhole on a call whose audio flows: ms from the blackhole's start to the page's `no_inbound_audio`, and
 * from the network's return to the page's audio arriving again.
 */
async function blackholeOnce(bench: BenchPage, simUrl: string, callId: string): Promise<{ warned: number; back: number }> {
  const warned = bench.page.evaluate(() => (window as unknown as PageGlobals).when((s) => s.warnings.includes('no_inbound_audio'), 20_000, 'no_inbound_audio'));
  const started = await armAndTrigger(simUrl, `browser-calls/${callId}`, { fault: 'media-blackhole', ms: BLACKHOLE_MS, callId });
  const back = started + BLACKHOLE_MS;
  await new Promise((resolve) => setTimeout(resolve, back - Date.now()));
  const during = await fromPage(simUrl, callId);
  for (;;) {
    if ((await fromPage(simUrl, callId)) > during) break;
    if (Date.now() - back > 20_000) throw new Error('bench: the audio did not come back within 20 s of the blackhole');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const took = Date.now() - back;
  // The next run starts from a call whose page shows its audio again, its warning cleared.
  await bench.page.evaluate(() => (window as unknown as PageGlobals).when((s) => s.audio === 'playing' && !s.warnings.includes('no_inbound_audio'), 15_000, 'audio playing again, no warning'));
  return { warned: (await warned) - started, back: took };
}

/** One stalled socket of a ready page: ms from the stall to `reconnecting`, then back to `ready`. */
async function stallOnce(bench: BenchPage, simUrl: string): Promise<number> {
  const sessionId = await bench.page.evaluate(() => (window as unknown as PageGlobals).voice.status().session?.id ?? '');
  const reconnecting = bench.page.evaluate(() => (window as unknown as PageGlobals).when((s) => s.connection === 'reconnecting', 30_000, 'reconnecting'));
  const stalledAt = await armAndTrigger(simUrl, `browser-sessions/${sessionId}`, { fault: 'stall-sip-socket', sessionId });
  const took = (await reconnecting) - stalledAt;
  await bench.page.evaluate(() => (window as unknown as PageGlobals).when((s) => s.connection === 'ready', 15_000, 'ready again'));
  return took;
}

export async function measureNetwork(bench: BenchPage, simUrl: string, runs: { blackholes: number; stalls: number }): Promise<{ figures: NetworkFigures; rows: Row[] }> {
  await bench.page.evaluate(() => (window as unknown as PageGlobals).voice.connect());
  const callId = await bench.page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    const call = await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() });
    await when((s) => s.call?.state === 'connected' && s.audio === 'playing', 10_000, 'a call with its audio playing');
    return call.id;
  });
  const blackholes: number[] = [];
  const warnings: number[] = [];
  for (let i = 0; i < runs.blackholes; i++) {
    const run = await blackholeOnce(bench, simUrl, callId);
    blackholes.push(run.back);
    warnings.push(run.warned);
  }
  await bench.page.evaluate(async () => {
    const { voice, when } = window as unknown as PageGlobals;
    await voice.hangup();
    await when((s) => !s.busy, 10_000, 'the call over');
  });
  const stalls: number[] = [];
  for (let i = 0; i < runs.stalls; i++) stalls.push(await stallOnce(bench, simUrl));
  await bench.page.evaluate(() => (window as unknown as PageGlobals).voice.disconnect());

  const figures = { blackholeToAudio: spread(blackholes), blackholeToWarning: spread(warnings), stallToReconnecting: spread(stalls) };
  return {
    figures,
    rows: [
      {
        figure: '`media-blackhole` 5 s → audio flows again (after the network returns, median)',
        value: `${ms(figures.blackholeToAudio.median)} (p95 ${ms(figures.blackholeToAudio.p95)}, ${blackholes.length} runs, same call)`,
        target: '≤ 1 s',
        met: figures.blackholeToAudio.median <= 1000,
      },
      {
        figure: '`media-blackhole` → `no_inbound_audio` in the status (from the blackhole\'s start, median)',
        value: `${ms(figures.blackholeToWarning.median)} (p95 ${ms(figures.blackholeToWarning.p95)}, ${warnings.length} runs)`,
        target: '< 4.5 s',
        met: figures.blackholeToWarning.p95 < 4500,
      },
      {
        figure: 'stalled SIP socket → `reconnecting` (median)',
        value: `${ms(figures.stallToReconnecting.median)} (p95 ${ms(figures.stallToReconnecting.p95)}, ${stalls.length} runs)`,
        target: '≤ 15 s',
        met: figures.stallToReconnecting.median <= 15_000,
      },
    ],
  };
}
