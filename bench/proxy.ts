import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import { cpus } from 'node:os';
import autocannon from 'autocannon';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import type { SessionTransport } from '../simulator/model.js';
import { startApp } from '../scripts/start-app.js';
import { SipClient, lendWebSocket } from '../test/simulator/support/sip-client.js';
import { processCpuSeconds } from './machine.js';
import { logInCookie, measureProxyCpu, type ProxyCpuFigures } from './proxy-cpu.js';
import { startBareRelay, startBenchSimulator } from './simulator-process.js';
import { quantile, type Row } from './stats.js';

/**
 * What the proxy costs: `GET /voice/browser-calls/:id` through it (log-in cookie, per-user limit, ownership
 * check, relay) against the same read straight to the simulator with the API key.
 *
 * @remarks
 * Deployed as in production: the simulator alone in its own process, the proxy in another with
 * `VOICE_BASE_URL` pointing at it (`npm start` with a real service), so each has its own event loop, as a
 * proxy and a service on two machines would. Added latency is measured at rest, one request at a time
 * (microseconds, which autocannon's whole-millisecond histogram cannot show); throughput with autocannon at
 * {@link CONNECTIONS} connections in {@link ROUNDS} interleaved rounds, which also gives the latency under
 * that load. A proxied read is one upstream read (the call carries its `externalSubject`, which proves whose
 * it is) behind the login check and the per-user limit, so the ratio is the price of keeping users apart as
 * well as of relaying.
 */

export interface LoadFigures {
  /** Medians over the rounds. */
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  /** Each round's requests a second, in round order. */
  rounds: number[];
  non2xx: number;
  errors: number;
  /** CPU each process spent per answered read over every round, in µs (the proxy's is absent when direct). */
  cpuPerRequestUs: { loadGenerator: number; simulator: number; proxy?: number };
}

export interface ProxyFigures {
  /** One request at a time: p50 and p99 of each path, and what the proxy adds. */
  restDirect: { p50Ms: number; p99Ms: number };
  restProxied: { p50Ms: number; p99Ms: number };
  /** The floor: a relay with no logic, in its own process on the same undici pool (bench/bare-relay-main.ts). */
  restBare: { p50Ms: number; p99Ms: number };
  addedP50Ms: number;
  addedP99Ms: number;
  bareAddedP50Ms: number;
  bareAddedP99Ms: number;
  /** autocannon at {@link CONNECTIONS} connections, {@link ROUNDS} interleaved rounds. */
  direct: LoadFigures;
  proxied: LoadFigures;
  bare: LoadFigures;
  /** Median over the rounds of each round's proxied / direct (and bare / direct). */
  throughputRatio: number;
  bareThroughputRatio: number;
  /** Lowest and highest of the rounds' ratios. */
  throughputRatioRange: [number, number];
  /** CPU per read of proxy and bare relay with everything in one process (proxy-cpu.ts). */
  inProcess: ProxyCpuFigures;
}

/** Seconds of load per path and round. */
const ROUND_S = Number(process.env.BENCH_PROXY_SECONDS ?? 2);
/**
 * The three paths take turns, a short load each, this many times, and a round's ratio compares loads seconds
 * apart: this VM's shared CPU swings a path's figure by 2x over a minute, so one long load each would mostly
 * compare moments.
 */
const ROUNDS = 7;
const CONNECTIONS = 10;
/** The bench's login: the call read belongs to it. */
const USER = 'bench-proxy';
/** Sequential requests per path at rest, taken in interleaved blocks so drift hits both alike. */
const REST_REQUESTS = 1000;
const REST_BLOCK = 100;

/** CPU seconds so far of the processes a load involves; autocannon runs in this one. */
interface CpuReaders {
  simulator(): number;
  proxy?(): number;
}

/** One round's load on one path: autocannon's result and the CPU seconds each process spent on it. */
interface RoundLoad {
  result: autocannon.Result;
  cpu: { loadGenerator: number; simulator: number; proxy: number };
}

async function loadOnce(url: string, headers: Record<string, string>, cpu: CpuReaders): Promise<RoundLoad> {
  const before = { self: process.cpuUsage(), simulator: cpu.simulator(), proxy: cpu.proxy?.() ?? 0 };
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: ROUND_S });
  const self = process.cpuUsage(before.self);
  return {
    result,
    cpu: { loadGenerator: (self.user + self.system) / 1e6, simulator: cpu.simulator() - before.simulator, proxy: (cpu.proxy?.() ?? 0) - before.proxy },
  };
}

/** A path's figures over its rounds: medians of the per-round figures, CPU over all of them. */
function summarize(rounds: readonly RoundLoad[], withProxy: boolean): LoadFigures {
  const requests = Math.max(1, rounds.reduce((sum, round) => sum + round.result.requests.total, 0));
  const perRequest = (pick: (round: RoundLoad) => number) => (rounds.reduce((sum, round) => sum + pick(round), 0) * 1e6) / requests;
  return {
    p50Ms: quantile(rounds.map((round) => round.result.latency.p50), 0.5),
    p99Ms: quantile(rounds.map((round) => round.result.latency.p99), 0.5),
    requestsPerSecond: quantile(rounds.map((round) => round.result.requests.average), 0.5),
    rounds: rounds.map((round) => round.result.requests.average),
    non2xx: rounds.reduce((sum, round) => sum + round.result.non2xx, 0),
    errors: rounds.reduce((sum, round) => sum + round.result.errors, 0),
    cpuPerRequestUs: {
      loadGenerator: perRequest((round) => round.cpu.loadGenerator),
      simulator: perRequest((round) => round.cpu.simulator),
      ...(withProxy ? { proxy: perRequest((round) => round.cpu.proxy) } : {}),
    },
  };
}

/** `count` GETs one after another over one kept-alive connection; each one's time in ms. */
async function oneAtATime(url: string, headers: Record<string, string>, count: number, agent: Agent): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      get(url, { headers, agent }, (response) => {
        response.resume();
        response.once('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${response.statusCode}`))));
      }).once('error', reject);
    });
    times.push(performance.now() - started);
  }
  return times;
}

async function json(response: Response): Promise<Record<string, unknown>> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

export async function measureProxy(): Promise<{ rows: Row[]; figures: ProxyFigures }> {
  const simulator = await startBenchSimulator();
  const restore = lendWebSocket();
  let client: SipClient | undefined;
  const app = await startApp({
    VOICE_BASE_URL: `${simulator.url}/api`,
    VOICE_API_KEY: DEFAULT_SIM_API_KEY,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    // The per-user limit far above the load, so every answer is 200 and the figure is the work, not a 429.
    VOICE_USER_RATE_PER_MINUTE: '100000000',
    VOICE_USER_RATE_PER_HOUR: '1000000000',
  }).catch(async (error: unknown) => {
    await simulator.stop();
    throw error;
  });
  const relay = await startBareRelay(simulator.url, DEFAULT_SIM_API_KEY).catch(async (error: unknown) => {
    await app.stop();
    await simulator.stop();
    throw error;
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const cookie = await logInCookie(app.demo, USER);
    const headers = { cookie, 'content-type': 'application/json' };
    const created = await json(await fetch(`${app.demo}/voice/browser-sessions`, { method: 'POST', headers, body: '{}' }));
    const session = created.session as { id: string };
    // A call needs a registered agent: SIP.js in Node registers the session's credentials, as a page would.
    client = await SipClient.start(created.transport as SessionTransport);
    await client.register(client.registerer());
    const call = await json(
      await fetch(`${app.demo}/voice/browser-calls`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'bench-proxy-call' },
        body: JSON.stringify({ sessionId: session.id, from: '+12025550199', to: '+12025550100' }),
      }),
    );
    const callId = (call.call as { id: string }).id;
    const directUrl = `${simulator.url}/api/v1/voice/browser-calls/${callId}`;
    const directHeaders = { 'x-api-key': DEFAULT_SIM_API_KEY };
    const proxiedUrl = `${app.demo}/voice/browser-calls/${callId}`;
    const proxiedHeaders = { cookie };
    const bareUrl = `${relay.url}/api/v1/voice/browser-calls/${callId}`;

    const restDirect: number[] = [];
    const restProxied: number[] = [];
    const restBare: number[] = [];
    await oneAtATime(directUrl, directHeaders, REST_BLOCK, agent); // warm-up: connections open, code compiled
    await oneAtATime(proxiedUrl, proxiedHeaders, REST_BLOCK, agent);
    await oneAtATime(bareUrl, {}, REST_BLOCK, agent);
    for (let done = 0; done < REST_REQUESTS; done += REST_BLOCK) {
      restDirect.push(...(await oneAtATime(directUrl, directHeaders, REST_BLOCK, agent)));
      restProxied.push(...(await oneAtATime(proxiedUrl, proxiedHeaders, REST_BLOCK, agent)));
      restBare.push(...(await oneAtATime(bareUrl, {}, REST_BLOCK, agent)));
    }
    const paths = {
      direct: { url: directUrl, headers: directHeaders, cpu: { simulator: () => simulator.cpuSeconds() } },
      proxied: { url: proxiedUrl, headers: proxiedHeaders, cpu: { simulator: () => simulator.cpuSeconds(), proxy: () => processCpuSeconds(app.pid) } },
      bare: { url: bareUrl, headers: {}, cpu: { simulator: () => simulator.cpuSeconds(), proxy: () => processCpuSeconds(relay.pid) } },
    };
    const names = ['direct', 'proxied', 'bare'] as const;
    const loads: Record<(typeof names)[number], RoundLoad[]> = { direct: [], proxied: [], bare: [] };
    for (let round = 0; round < ROUNDS; round++) {
      // Each path goes first, second and third in turn, so none always follows the same neighbour.
      for (let i = 0; i < names.length; i++) {
        const name = names[(round + i) % names.length] as (typeof names)[number];
        loads[name].push(await loadOnce(paths[name].url, paths[name].headers, paths[name].cpu));
      }
    }
    const direct = summarize(loads.direct, false);
    const proxied = summarize(loads.proxied, true);
    const bare = summarize(loads.bare, true);
    const ratios = (of: RoundLoad[]) => of.map((round, i) => round.result.requests.average / (loads.direct[i]?.result.requests.average ?? NaN));
    const proxiedRatios = ratios(loads.proxied);

    // The same read, answered by a stand-in in this process: the proxy's own CPU without contention.
    const sample = await fetch(directUrl, { headers: directHeaders });
    const passed = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].flatMap((name) => {
      const value = sample.headers.get(name);
      return value === null ? [] : [[name, value] as const];
    });
    const inProcess = await measureProxyCpu({ body: await sample.text(), headers: Object.fromEntries(passed) }, callId, USER, DEFAULT_SIM_API_KEY);

    const at = (samples: number[]) => ({ p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99) });
    const figures: ProxyFigures = {
      restDirect: at(restDirect),
      restProxied: at(restProxied),
      restBare: at(restBare),
      addedP50Ms: quantile(restProxied, 0.5) - quantile(restDirect, 0.5),
      addedP99Ms: quantile(restProxied, 0.99) - quantile(restDirect, 0.99),
      bareAddedP50Ms: quantile(restBare, 0.5) - quantile(restDirect, 0.5),
      bareAddedP99Ms: quantile(restBare, 0.99) - quantile(restDirect, 0.99),
      direct,
      proxied,
      bare,
      throughputRatio: quantile(proxiedRatios, 0.5),
      bareThroughputRatio: quantile(ratios(loads.bare), 0.5),
      throughputRatioRange: [Math.min(...proxiedRatios), Math.max(...proxiedRatios)],
      inProcess,
    };
    const clean = [direct, proxied, bare].every((figure) => figure.non2xx + figure.errors === 0);
    const two = (value: number) => `${value.toFixed(2)} ms`;
    const us = (value: number) => `${value.toFixed(0)} µs`;
    const pct = (value: number) => `${(100 * value).toFixed(0)} %`;
    const rows: Row[] = [
      {
        figure: `GET call, one at a time (${REST_REQUESTS} each)`,
        value: `direct p50 ${two(figures.restDirect.p50Ms)} / p99 ${two(figures.restDirect.p99Ms)}; proxied p50 ${two(figures.restProxied.p50Ms)} / p99 ${two(figures.restProxied.p99Ms)}; bare relay p50 ${two(figures.restBare.p50Ms)} / p99 ${two(figures.restBare.p99Ms)}`,
        target: 'baseline',
      },
      {
        figure: 'proxy: added latency p50 / p99',
        value: `${two(figures.addedP50Ms)} / ${two(figures.addedP99Ms)} (a bare relay: ${two(figures.bareAddedP50Ms)} / ${two(figures.bareAddedP99Ms)})`,
        target: '<= 1 ms p50',
        met: figures.addedP50Ms <= 1,
      },
      {
        figure: `GET call, autocannon ${CONNECTIONS} conns, ${ROUNDS} rounds of ${ROUND_S} s`,
        value: `direct ${direct.requestsPerSecond.toFixed(0)} req/s (p50 ${direct.p50Ms} / p99 ${direct.p99Ms} ms); proxied ${proxied.requestsPerSecond.toFixed(0)} req/s (p50 ${proxied.p50Ms} / p99 ${proxied.p99Ms} ms); bare relay ${bare.requestsPerSecond.toFixed(0)} req/s`,
        target: 'every answer 200',
        met: clean,
      },
      {
        figure: 'CPU per read under that load',
        value: `direct: simulator ${us(direct.cpuPerRequestUs.simulator)}, autocannon ${us(direct.cpuPerRequestUs.loadGenerator)}; proxied: proxy ${us(proxied.cpuPerRequestUs.proxy ?? NaN)}, simulator ${us(proxied.cpuPerRequestUs.simulator)}, autocannon ${us(proxied.cpuPerRequestUs.loadGenerator)}; bare relay ${us(bare.cpuPerRequestUs.proxy ?? NaN)}`,
        target: `all share ${cpus().length} cores; one proxy core: ${Math.round(1e6 / (proxied.cpuPerRequestUs.proxy ?? NaN))} reads/s`,
      },
      {
        figure: 'proxy: own CPU per read, all in one process',
        value: `${us(inProcess.proxyUs)} (a bare relay: ${us(inProcess.bareUs)}; the read itself ${us(inProcess.directUs)})`,
        target: `no other process; compare versions by proxy / bare relay (${(inProcess.proxyUs / inProcess.bareUs).toFixed(1)}x)`,
      },
      {
        figure: 'proxy: throughput as a share of direct',
        value: `${pct(figures.throughputRatio)} (rounds ${pct(figures.throughputRatioRange[0])}-${pct(figures.throughputRatioRange[1])}; a bare relay: ${pct(figures.bareThroughputRatio)})`,
        target: '>= 80 %',
        met: figures.throughputRatio >= 0.8,
      },
    ];
    return { rows, figures };
  } finally {
    agent.destroy();
    await client?.stop().catch(() => undefined);
    restore();
    await relay.stop();
    await app.stop();
    await simulator.stop();
  }
}
