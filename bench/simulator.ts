import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import { sleep, SimulatorApi } from '../test/simulator/support/sim-api.js';
import { lendWebSocket, type SipClient } from '../test/simulator/support/sip-client.js';
import { callAll, closePages, flowing, openPages, type Page } from './load-pages.js';
import { startBenchSimulator, type BenchSimulator } from './simulator-process.js';
import { quantile, type Row } from './stats.js';

/**
 * Guards: the simulator carries the calls its users run against it (10 calls with media on two
 * cores) without its signalling lagging. Steps of simultaneous calls with audio both ways, and at each step
 * whether its answers are still prompt.
 *
 * @remarks
 * The simulator runs alone in its own process ({@link startBenchSimulator}). The pages are SIP.js in this
 * process, each over its own WebSocket, answering with werift and sending a microphone's PCMU
 * ({@link openPages}). Once every call of a step carries audio both ways, for {@link HOLD_MS}: a REST read of a
 * call and a SIP OPTIONS from an idle registered agent every 100 ms (both wait behind the simulator's event
 * loop, so its lag shows there first), and both processes' CPU. A step lags when either round trip's p95
 * passes {@link LAG_MS}. The pages share the machine with the simulator: when they take over
 * {@link PAGES_MAX_CORES} of their one core, the step says so and the ramp stops, since past that point the
 * figure would be the pages', not the simulator's.
 */

export interface SimulatorStep {
  calls: number;
  /** Calls that connected with audio both ways within the deadline. */
  connected: number;
  /** POST /browser-calls sent to the page's SIP.js holding the INVITE, while the step's calls set up. */
  inviteP95Ms: number;
  /** Round trips while every call talks. */
  restP95Ms: number;
  sipP95Ms: number;
  /** CPU while every call talks, in cores (1 = one core busy): the simulator's, and this process's pages'. */
  simulatorCores: number;
  pagesCores: number;
  /** `ok`: every call up, no lag; `lag`: the simulator lagged; `setup`: some call did not come up; `pages`: the pages fell behind. */
  verdict: 'ok' | 'lag' | 'setup' | 'pages';
}

export interface SimulatorFigures {
  steps: SimulatorStep[];
  /** The most calls that ran without lag, and the calls one core carries at the simulator's CPU then. */
  callsWithoutLag: number;
  callsPerCore: number;
}

const LAG_MS = 50;
const PAGES_MAX_CORES = 0.9;
const HOLD_MS = Number(process.env.BENCH_SIM_HOLD_MS ?? 5000);
const STEPS = (process.env.BENCH_SIM_STEPS ?? '10,20,40,80,120,160').split(',').map(Number);
const STAGGER_MS = 25;
const PROBE_EVERY_MS = 100;

/** For {@link HOLD_MS} while `talking` all carry audio: the probes' round trips and both sides' CPU. */
async function talk(api: SimulatorApi, simulator: BenchSimulator, probe: SipClient, talking: readonly Page[]) {
  const reads: number[] = [];
  const options: number[] = [];
  let probing = talking.length > 0;
  const probes = (async () => {
    while (probing) {
      const restStarted = performance.now();
      await api.request('GET', `/browser-calls/${talking[0]?.callId ?? ''}`);
      reads.push(performance.now() - restStarted);
      const sipStarted = performance.now();
      await probe.request('OPTIONS');
      options.push(performance.now() - sipStarted);
      await sleep(PROBE_EVERY_MS);
    }
  })();
  const at = { wall: performance.now(), simulator: await simulator.cpuSeconds(), pages: process.cpuUsage() };
  await sleep(HOLD_MS);
  const seconds = (performance.now() - at.wall) / 1000;
  const simulatorCores = ((await simulator.cpuSeconds()) - at.simulator) / seconds;
  const pagesCpu = process.cpuUsage(at.pages);
  probing = false;
  await probes;
  return { reads, options, simulatorCores, pagesCores: (pagesCpu.user + pagesCpu.system) / 1e6 / seconds };
}

async function step(api: SimulatorApi, simulator: BenchSimulator, probe: SipClient, calls: number): Promise<SimulatorStep> {
  const pages: Page[] = [];
  try {
    await openPages(api, calls, `s${calls}`, pages);
    const started = await callAll(api, pages, STAGGER_MS);
    const up = await Promise.all(pages.map((page, i) => (started[i] ? flowing(api, page, PROBE_EVERY_MS) : false)));
    const talking = pages.filter((_, i) => up[i]);
    const measured = await talk(api, simulator, probe, talking);
    const restP95Ms = quantile(measured.reads, 0.95);
    const sipP95Ms = quantile(measured.options, 0.95);
    const invites = pages.flatMap((page) => (page.inviteMs === undefined ? [] : [page.inviteMs]));
    const allUp = talking.length === calls;
    const lagged = restP95Ms > LAG_MS || sipP95Ms > LAG_MS;
    return {
      calls,
      connected: talking.length,
      inviteP95Ms: quantile(invites, 0.95),
      restP95Ms,
      sipP95Ms,
      simulatorCores: measured.simulatorCores,
      pagesCores: measured.pagesCores,
      // Pages behind slow the round trips they time, so their limit comes first.
      verdict: measured.pagesCores > PAGES_MAX_CORES ? 'pages' : !allUp ? 'setup' : lagged ? 'lag' : 'ok',
    };
  } finally {
    await closePages(api, pages);
  }
}

function stepRow(s: SimulatorStep): Row {
  const pct = (cores: number) => `${(100 * cores).toFixed(0)} %`;
  return {
    figure: `simulator: ${s.calls} calls with media`,
    value:
      `${s.connected}/${s.calls} up; REST p95 ${s.restP95Ms.toFixed(0)} ms, SIP OPTIONS p95 ${s.sipP95Ms.toFixed(0)} ms, INVITE p95 ${s.inviteP95Ms.toFixed(0)} ms; ` +
      `CPU ${pct(s.simulatorCores)} (pages ${pct(s.pagesCores)})${s.verdict === 'pages' ? '; the pages fell behind' : ''}`,
    target: `round trips p95 <= ${LAG_MS} ms`,
    // A step the pages could not drive says nothing either way.
    met: s.verdict === 'pages' ? undefined : s.verdict === 'ok',
  };
}

export async function measureSimulator(): Promise<{ rows: Row[]; figures: SimulatorFigures }> {
  const simulator = await startBenchSimulator();
  const restore = lendWebSocket();
  const api = new SimulatorApi({ url: simulator.url, baseUrl: `${simulator.url}/api` }, DEFAULT_SIM_API_KEY);
  const probes: Page[] = [];
  try {
    await openPages(api, 1, 'probe', probes);
    const probe = probes[0]?.client;
    if (!probe) throw new Error('no probe agent');
    const steps: SimulatorStep[] = [];
    for (const calls of STEPS) {
      process.stderr.write(`  simulator: ${calls} calls with media\n`);
      steps.push(await step(api, simulator, probe, calls));
      if (steps.at(-1)?.verdict !== 'ok') break;
    }
    const best = steps.filter((s) => s.verdict === 'ok').at(-1);
    const last = steps.at(-1);
    const figures: SimulatorFigures = { steps, callsWithoutLag: best?.calls ?? 0, callsPerCore: best ? best.calls / Math.max(best.simulatorCores, 0.01) : 0 };
    const stopped = last?.verdict === 'ok' ? 'no step lagged, so this is a floor' : `${last?.verdict === 'pages' ? 'the pages fell behind' : last?.verdict === 'setup' ? 'not every call came up' : 'it lagged'} at ${last?.calls ?? 0}`;
    const rows: Row[] = steps.map(stepRow);
    rows.push({
      figure: 'simulator: calls with media per core',
      value: best ? `${figures.callsPerCore.toFixed(0)} (${best.calls} calls without lag at ${(100 * best.simulatorCores).toFixed(0)} % of a core; ${stopped})` : 'none without lag',
      target: '10 calls on 2 cores',
      met: figures.callsWithoutLag >= 10,
    });
    return { rows, figures };
  } finally {
    await closePages(api, probes);
    restore();
    await simulator.stop();
  }
}
