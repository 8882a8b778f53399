import { availableParallelism } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Invitation } from 'sip.js';
import { DEFAULT_SIM_API_KEY } from '../server-proxy/config.js';
import { sleep, waitFor, SimulatorApi } from '../test/simulator/support/sim-api.js';
import { SipClient, lendWebSocket } from '../test/simulator/support/sip-client.js';
import { WeriftSessionDescriptionHandler } from '../test/simulator/support/werift-sdh.js';
import { machineCpuSeconds } from './machine.js';
import { startBenchSimulator, type BenchSimulator, type LoopDelay } from './simulator-process.js';
import { quantile, type Row } from './stats.js';

/**
 * The simulator's capacity: steps of simultaneous calls with audio both ways, and at each step the point
 * where its signalling starts to lag.
 *
 * @remarks
 * The simulator runs alone in its own process (bench/simulator-main.ts). The pages are SIP.js in this
 * process, each over its own WebSocket, answering with werift (DTLS-SRTP on loopback) and sending a
 * microphone's 50 PCMU packets a second, as test/simulator/concurrency.test.ts drives them. Once every call
 * of a step carries audio both ways, for {@link HOLD_MS}: a REST read of a call and a SIP OPTIONS from an
 * idle registered agent every 100 ms (both wait behind the simulator's event loop, so its lag shows there
 * first), the RTP each call carried at the simulator, and both processes' CPU. A step lags when either round
 * trip's p95 passes {@link LAG_MS}. The RTP rate is shown, not judged: after its tone the simulator echoes
 * each packet as it arrives, so the rate is the pages', whose 20 ms `setInterval` drifts late as their event
 * loop gets busier (Node re-arms an interval from when its callback ran), to 42-48 packets a second. Both
 * sides share this machine's 2 cores: when this process nears {@link PAGES_MAX_CORES} of its one core the
 * step says so and the ramp stops, since past that point the figure would be the pages', not the simulator's.
 * The simulator reports its own event-loop delay, and /proc/stat what else ran meanwhile (other work, or
 * other guests of the hypervisor): a failure while they took over {@link SHARED_CORES} is put down to them.
 */

export interface SimulatorStep {
  calls: number;
  /** Calls that connected with audio both ways within the deadline. */
  connected: number;
  /** POST /browser-calls sent to the page's SIP.js holding the INVITE, while the step's calls set up. */
  inviteP50Ms: number;
  inviteP95Ms: number;
  /** Round trips while every call talks. */
  restP50Ms: number;
  restP95Ms: number;
  sipP50Ms: number;
  sipP95Ms: number;
  /** RTP packets a second each call sent at the simulator (mean, and the slowest call), and received from it. */
  meanFromPagesPps: number;
  minFromPagesPps: number;
  meanToPagesPps: number;
  /** CPU while every call talks, in cores (1 = one core busy): the simulator's, and this process's pages'. */
  simulatorCores: number;
  pagesCores: number;
  /** The 99th percentile of this process's event-loop delay meanwhile: the pages' own lag. */
  pagesLoopDelayP99Ms: number;
  /** The simulator's own event-loop delay meanwhile, which each of its answers waits behind. */
  simulatorLoopDelay: LoopDelay;
  /**
   * Over the whole step (set-up and talking), in cores: CPU this machine spent on anything but the simulator
   * and the pages (other work, the kernel), and CPU the hypervisor gave to other guests.
   */
  othersCores: number;
  stolenCores: number;
  /**
   * `ok`: every call up and no lag; `lag`: the simulator lagged; `setup`: some call did not come up;
   * `pages`: the pages (this process) fell behind, so this step says nothing of the simulator; `machine`:
   * a call did not come up or round trips lagged while other work or other guests took over
   * {@link SHARED_CORES} of the machine, so it is not the simulator's alone.
   */
  verdict: 'ok' | 'lag' | 'setup' | 'pages' | 'machine';
}

export interface SimulatorFigures {
  steps: SimulatorStep[];
  /** The most calls that ran without lag, the simulator's CPU then, and the calls one core carries at that rate. */
  callsWithoutLag: number;
  coresAtThatStep: number;
  callsPerCore: number;
  /** Why the ramp stopped: the last step's verdict, or `ok` when every step passed. */
  stoppedBy: SimulatorStep['verdict'];
}

const LAG_MS = 50;
/** Node runs the pages on one core: near it, their timers and the probes they time slip. */
const PAGES_MAX_CORES = 0.9;
const SHARED_CORES = 0.2;
const LOOP_SAMPLE_MS = 10;
const HOLD_MS = Number(process.env.BENCH_SIM_HOLD_MS ?? 5000);
const STEPS = (process.env.BENCH_SIM_STEPS ?? '10,20,40,80,120,160').split(',').map(Number);
const STAGGER_MS = 25;
const PROBE_EVERY_MS = 100;
const SETUP_MS = 30_000;

/** One page of the load: its session, its SIP.js agent, and once called, its call. */
interface Page {
  sessionId: string;
  client: SipClient;
  callId?: string;
  sdh?: WeriftSessionDescriptionHandler;
  inviteMs?: number;
}

const ANSWER_AT_ONCE = '+12025550100';

async function openPages(api: SimulatorApi, count: number, tag: string): Promise<Page[]> {
  const pages: Page[] = [];
  for (let i = 0; i < count; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - i) }, async (_, j) => {
        const { session, transport } = await api.openSession(`bench-${tag}-${i + j}-${Date.now()}`);
        const client = await SipClient.start(transport, { media: 'werift' });
        const registered = await client.register(client.registerer(transport.registrationExpiresSeconds));
        if (registered.statusCode !== 200) throw new Error(`REGISTER answered ${registered.statusCode}`);
        return { sessionId: session.id, client };
      }),
    );
    pages.push(...batch);
  }
  return pages;
}

/** Calls from the page, answers the INVITE with werift and starts its microphone; times POST to INVITE. */
async function call(api: SimulatorApi, page: Page): Promise<void> {
  const sent = performance.now();
  const invited = page.client.nextInvitation().then((invitation) => ({ invitation, at: performance.now() }));
  const created = await api.startCall(page.sessionId, ANSWER_AT_ONCE);
  if (created.status !== 202) throw new Error(`POST /browser-calls answered ${created.status} ${created.body.code ?? ''}`);
  page.callId = created.body.call.id;
  const { invitation, at } = await invited;
  page.inviteMs = at - sent;
  await (invitation as Invitation).accept();
  const sdh = invitation.sessionDescriptionHandler;
  if (!(sdh instanceof WeriftSessionDescriptionHandler)) throw new Error('the load needs werift media');
  sdh.startAudio();
  page.sdh = sdh;
}

async function flowing(api: SimulatorApi, page: Page): Promise<boolean> {
  if (!page.callId || !page.sdh) return false;
  const { callId, sdh } = page;
  return waitFor(
    async () => {
      if (sdh.packetsReceived < 50) return undefined;
      const { call: read, media } = await api.inspect(callId);
      return read.state === 'connected' && (media?.packetsFromBrowser ?? 0) >= 50 && (media?.packetsToBrowser ?? 0) >= 50 ? true : undefined;
    },
    `call ${callId} to carry audio both ways`,
    SETUP_MS,
    PROBE_EVERY_MS,
  ).catch(() => false);
}

/** Each call's media counts at the simulator, with the moment each was read. */
const countsOf = (api: SimulatorApi, pages: readonly Page[]) =>
  Promise.all(pages.map(async (page) => ({ media: (await api.inspect(page.callId ?? '')).media, at: performance.now() })));

async function step(api: SimulatorApi, simulator: BenchSimulator, probe: SipClient, calls: number): Promise<SimulatorStep> {
  const stepAt = { wall: performance.now(), simulator: simulator.cpuSeconds(), pages: process.cpuUsage(), machine: machineCpuSeconds() };
  const pages = await openPages(api, calls, `s${calls}`);
  try {
    const started = await Promise.all(
      pages.map(async (page, i) => {
        await sleep(i * STAGGER_MS); // pages do not all click in the same millisecond
        return call(api, page).then(
          () => true,
          (error: unknown) => (console.error(`  simulator bench: a call of ${calls} did not start: ${String(error)}`), false),
        );
      }),
    );
    const ok = await Promise.all(pages.map((page, i) => (started[i] ? flowing(api, page) : false)));
    const talking = pages.filter((_, i) => ok[i]);

    const reads: number[] = [];
    const options: number[] = [];
    const probedCall = talking[0]?.callId ?? '';
    let probing = talking.length > 0;
    const probes = (async () => {
      while (probing) {
        const restStarted = performance.now();
        await api.request('GET', `/browser-calls/${probedCall}`);
        reads.push(performance.now() - restStarted);
        const sipStarted = performance.now();
        await probe.request('OPTIONS');
        options.push(performance.now() - sipStarted);
        await sleep(PROBE_EVERY_MS);
      }
    })();
    const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
    const before = await countsOf(api, talking);
    const cpuAt = simulator.cpuSeconds();
    const pagesCpuAt = process.cpuUsage();
    const wallAt = performance.now();
    loop.enable();
    simulator.resetLoopDelay();
    await sleep(HOLD_MS);
    const simulatorLoopDelay = await simulator.readLoopDelay();
    loop.disable();
    const seconds = (performance.now() - wallAt) / 1000;
    const simulatorCores = (simulator.cpuSeconds() - cpuAt) / seconds;
    const pagesCpu = process.cpuUsage(pagesCpuAt);
    const pagesCores = (pagesCpu.user + pagesCpu.system) / 1e6 / seconds;
    // What else ran: the machine's cores, less idle and stolen time, less the simulator and the pages.
    const stepSeconds = (performance.now() - stepAt.wall) / 1000;
    const machine = machineCpuSeconds();
    const stepPagesCpu = process.cpuUsage(stepAt.pages);
    const stolenCores = (machine.steal - stepAt.machine.steal) / stepSeconds;
    const busyCores = availableParallelism() - (machine.idle - stepAt.machine.idle) / stepSeconds - stolenCores;
    const othersCores = busyCores - (simulator.cpuSeconds() - stepAt.simulator) / stepSeconds - (stepPagesCpu.user + stepPagesCpu.system) / 1e6 / stepSeconds;
    const after = await countsOf(api, talking);
    probing = false;
    await probes;

    const rates = (pick: (media: NonNullable<(typeof before)[number]['media']>) => number) =>
      talking.map((_, i) => {
        const [from, to] = [before[i], after[i]];
        if (!from?.media || !to?.media) return 0;
        return ((pick(to.media) - pick(from.media)) * 1000) / (to.at - from.at);
      });
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
    const fromPages = rates((media) => media.packetsFromBrowser);
    const meanFromPagesPps = mean(fromPages);
    const minFromPagesPps = Math.min(...fromPages);
    const meanToPagesPps = mean(rates((media) => media.packetsToBrowser));
    // Node's histogram records the whole interval between two samples: the delay is what exceeds it.
    const pagesLoopDelayP99Ms = Math.max(0, loop.percentile(99) / 1e6 - LOOP_SAMPLE_MS);
    // Behind pages also slow the round trips they time, so their lag comes first. (Their event-loop delay
    // is kept as a clue, not a verdict: one GC pause or a neighbour's burst puts its p99 past 20 ms.)
    const pagesBound = pagesCores > PAGES_MAX_CORES;
    const restP95Ms = quantile(reads, 0.95);
    const sipP95Ms = quantile(options, 0.95);
    const lagged = restP95Ms > LAG_MS || sipP95Ms > LAG_MS;
    const shared = othersCores + stolenCores > SHARED_CORES;
    const invites = pages.flatMap((page) => (page.inviteMs === undefined ? [] : [page.inviteMs]));
    return {
      calls,
      connected: talking.length,
      inviteP50Ms: quantile(invites, 0.5),
      inviteP95Ms: quantile(invites, 0.95),
      restP50Ms: quantile(reads, 0.5),
      restP95Ms,
      sipP50Ms: quantile(options, 0.5),
      sipP95Ms,
      meanFromPagesPps,
      minFromPagesPps,
      meanToPagesPps,
      simulatorCores,
      pagesCores,
      pagesLoopDelayP99Ms,
      simulatorLoopDelay,
      othersCores,
      stolenCores,
      verdict: pagesBound ? 'pages' : talking.length === calls && !lagged ? 'ok' : shared ? 'machine' : talking.length < calls ? 'setup' : 'lag',
    };
  } finally {
    await Promise.all(pages.map((page) => (page.callId ? api.hangup(page.callId).catch(() => undefined) : undefined)));
    await Promise.all(
      pages.map((page) =>
        page.callId ? api.waitForCall(page.callId, (read) => !read.busy, `call ${page.callId} to end`).catch(() => undefined) : undefined,
      ),
    );
    // Unregisters, closes each WebSocket and peer connection: nothing of a step outlives it.
    await Promise.all(pages.map((page) => page.client.stop().catch(() => undefined)));
  }
}

function stepRow(s: SimulatorStep): Row {
  const value =
    `${s.connected}/${s.calls} up; REST p95 ${s.restP95Ms.toFixed(0)} ms, SIP OPTIONS p95 ${s.sipP95Ms.toFixed(0)} ms, ` +
    `INVITE p95 ${s.inviteP95Ms.toFixed(0)} ms; RTP ${s.meanFromPagesPps.toFixed(0)}/s a call each way (slowest ${s.minFromPagesPps.toFixed(0)}); ` +
    `CPU ${(100 * s.simulatorCores).toFixed(0)} % (pages ${(100 * s.pagesCores).toFixed(0)} %, others ${(100 * Math.max(0, s.othersCores)).toFixed(0)} %, stolen ${(100 * s.stolenCores).toFixed(0)} %); ` +
    `loop delay p99 ${s.simulatorLoopDelay.p99Ms.toFixed(0)} ms (pages ${s.pagesLoopDelayP99Ms.toFixed(0)} ms)` +
    { ok: '', lag: '', setup: '', pages: '; the pages fell behind', machine: '; other work shared the machine' }[s.verdict];
  return {
    figure: `simulator: ${s.calls} calls with media`,
    value,
    target: `round trips p95 ≤ ${LAG_MS} ms`,
    // A step the pages could not drive, or run on a shared machine, says nothing either way.
    met: s.verdict === 'pages' || s.verdict === 'machine' ? undefined : s.verdict === 'ok',
  };
}

export async function measureSimulator(): Promise<{ rows: Row[]; figures: SimulatorFigures }> {
  const simulator = await startBenchSimulator();
  const restore = lendWebSocket();
  let probe: SipClient | undefined;
  try {
    const api = new SimulatorApi({ url: simulator.url, baseUrl: `${simulator.url}/api` }, DEFAULT_SIM_API_KEY);
    const [probePage] = await openPages(api, 1, 'probe');
    probe = probePage?.client;
    if (!probe) throw new Error('no probe agent');
    const steps: SimulatorStep[] = [];
    for (const calls of STEPS) {
      process.stderr.write(`  simulator: ${calls} calls with media\n`);
      const measured = await step(api, simulator, probe, calls);
      steps.push(measured);
      if (measured.verdict !== 'ok') break;
    }
    const stoppedBy = steps.at(-1)?.verdict ?? 'ok';
    const best = steps.filter((s) => s.verdict === 'ok').at(-1);
    const figures: SimulatorFigures = {
      steps,
      callsWithoutLag: best?.calls ?? 0,
      coresAtThatStep: best?.simulatorCores ?? 0,
      callsPerCore: best ? best.calls / Math.max(best.simulatorCores, 0.01) : 0,
      stoppedBy,
    };
    const why = {
      lag: `it lagged at ${steps.at(-1)?.calls ?? 0}`,
      setup: `not every call came up at ${steps.at(-1)?.calls ?? 0}`,
      pages: `the pages fell behind at ${steps.at(-1)?.calls ?? 0} before it lagged, so this is a floor`,
      machine: `other work took the machine at ${steps.at(-1)?.calls ?? 0}, so this is a floor`,
      ok: 'no step lagged, so this is a floor',
    }[stoppedBy];
    const rows: Row[] = steps.map(stepRow);
    rows.push({
      figure: 'simulator: calls with media per core',
      value: best ? `${figures.callsPerCore.toFixed(0)} (${best.calls} calls without lag at ${(100 * best.simulatorCores).toFixed(0)} % of a core; ramp stopped: ${why})` : 'none without lag',
      target: 'issue 3: 10 calls on 2 cores',
      met: (best?.calls ?? 0) >= 10,
    });
    return { rows, figures };
  } finally {
    await probe?.stop().catch(() => undefined);
    restore();
    await simulator.stop();
  }
}
