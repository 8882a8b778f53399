import { randomBytes } from 'node:crypto';
import { Agent, get } from 'node:http';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';
import type { SessionTransport } from '../simulator/service/model.js';
import { startApp } from '../scripts/start-app.js';
import { SipClient, lendWebSocket } from '../test/simulator/support/sip-client.js';
import { startBenchSimulator } from './simulator-process.js';
import { quantile, type Row } from './stats.js';

/**
 * Guards: the proxy adds at most 1 ms p50 to a page's read of its call (docs/bench.md). The read the page makes
 * once a second, `GET /browser-calls/:id` of a call in progress, one at a time: straight to the simulator
 * with the key, and through the proxy with the log-in cookie (login check, per-user limit, ownership,
 * relay). Deployed as in production: the simulator alone in its own process, the app (`npm start` with
 * `VOICE_BASE_URL` pointing at it) in another. The two paths take turns in blocks, so the machine's drift
 * hits both alike.
 */

export interface ProxyFigures {
  direct: { p50Ms: number; p99Ms: number };
  proxied: { p50Ms: number; p99Ms: number };
  addedP50Ms: number;
  addedP99Ms: number;
}

const READS = 1000;
const BLOCK = 100;

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

/**
 * The proxy's added latency: both servers up, the same read direct and proxied, interleaved; one
 * measurement script, read top to bottom.
 */
export async function measureProxy(): Promise<{ rows: Row[]; figures: ProxyFigures }> {
  const simulator = await startBenchSimulator();
  const restore = lendWebSocket();
  let client: SipClient | undefined;
  const app = await startApp({
    VOICE_BASE_URL: `${simulator.url}/api`,
    VOICE_API_KEY: DEFAULT_SIM_API_KEY,
    SESSION_SECRET: randomBytes(32).toString('base64url'),
    // The per-user limit far above the reads, so every answer is 200.
    VOICE_USER_RATE_PER_MINUTE: '100000000',
    VOICE_USER_RATE_PER_HOUR: '1000000000',
  }).catch(async (error: unknown) => {
    await simulator.stop();
    throw error;
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"username":"bench-proxy"}' });
    if (!login.ok) throw new Error(`bench: login answered ${login.status}`);
    const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
    const headers = { cookie, 'content-type': 'application/json' };
    const created = await json(await fetch(`${app.demo}/voice/browser-sessions`, { method: 'POST', headers, body: '{}' }));
    // A call needs a registered agent: SIP.js in Node registers the session's credentials, as a page would.
    client = await SipClient.start(created.transport as SessionTransport);
    await client.register(client.registerer());
    const call = await json(
      await fetch(`${app.demo}/voice/browser-calls`, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': 'bench-proxy-call' },
        body: JSON.stringify({ sessionId: (created.session as { id: string }).id, from: '+12025550199', to: '+12025550100' }),
      }),
    );
    const callId = (call.call as { id: string }).id;
    const paths = {
      direct: { url: `${simulator.url}/api/v1/voice/browser-calls/${callId}`, headers: { 'x-api-key': DEFAULT_SIM_API_KEY } },
      proxied: { url: `${app.demo}/voice/browser-calls/${callId}`, headers: { cookie } },
    };
    // Warm-up: connections open, code compiled.
    for (const path of Object.values(paths)) await oneAtATime(path.url, path.headers, BLOCK, agent);
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let done = 0; done < READS; done += BLOCK) {
      direct.push(...(await oneAtATime(paths.direct.url, paths.direct.headers, BLOCK, agent)));
      proxied.push(...(await oneAtATime(paths.proxied.url, paths.proxied.headers, BLOCK, agent)));
    }
    const at = (samples: number[]) => ({ p50Ms: quantile(samples, 0.5), p99Ms: quantile(samples, 0.99) });
    const figures: ProxyFigures = {
      direct: at(direct),
      proxied: at(proxied),
      addedP50Ms: quantile(proxied, 0.5) - quantile(direct, 0.5),
      addedP99Ms: quantile(proxied, 0.99) - quantile(direct, 0.99),
    };
    const two = (value: number) => `${value.toFixed(2)} ms`;
    const rows: Row[] = [
      {
        figure: `GET call, one at a time (${READS} each): direct / proxied`,
        value: `p50 ${two(figures.direct.p50Ms)} / ${two(figures.proxied.p50Ms)}, p99 ${two(figures.direct.p99Ms)} / ${two(figures.proxied.p99Ms)}`,
        target: 'baseline',
      },
      { figure: 'proxy: added latency p50 / p99', value: `${two(figures.addedP50Ms)} / ${two(figures.addedP99Ms)}`, target: '<= 1 ms p50', met: figures.addedP50Ms <= 1 },
    ];
    return { rows, figures };
  } finally {
    agent.destroy();
    await client?.stop().catch(() => undefined);
    restore();
    await app.stop();
    await simulator.stop();
  }
}
