import autocannon from 'autocannon';
import { DEFAULT_SIM_API_KEY } from '../server-proxy/config.js';
import type { SessionTransport } from '../server-proxy/simulator/model.js';
import { startApp } from '../scripts/start-app.js';
import { SipClient, lendWebSocket } from '../test/simulator/support/sip-client.js';
import { ms, type Row } from './stats.js';

/**
 * What the proxy costs: `GET /voice/browser-calls/:id` through it (log-in cookie, per-user limit, ownership
 * check, relay) against the same read straight to the simulator with the API key, both loaded by autocannon
 * on this machine. The proxy's read is two upstream reads (the call, then its session, to prove ownership
 * when the call carries no `externalSubject`), so the ratio is the price of keeping users apart.
 */

export interface LoadFigures {
  p50Ms: number;
  p99Ms: number;
  requestsPerSecond: number;
  non2xx: number;
  errors: number;
}

export interface ProxyFigures {
  direct: LoadFigures;
  proxied: LoadFigures;
  addedP50Ms: number;
  addedP99Ms: number;
  throughputRatio: number;
}

const DURATION_S = Number(process.env.BENCH_PROXY_SECONDS ?? 5);
const CONNECTIONS = 10;

async function load(url: string, headers: Record<string, string>): Promise<LoadFigures> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: DURATION_S });
  return { p50Ms: result.latency.p50, p99Ms: result.latency.p99, requestsPerSecond: result.requests.average, non2xx: result.non2xx, errors: result.errors };
}

async function json(response: Response): Promise<Record<string, unknown>> {
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

export async function measureProxy(): Promise<{ rows: Row[]; figures: ProxyFigures }> {
  // Limits far above the load, so both sides answer 200 and the figure is the work, not a 429.
  const app = await startApp({
    SIM_QUOTA_PER_MINUTE: '100000000',
    SIM_QUOTA_PER_HOUR: '1000000000',
    VOICE_USER_RATE_PER_MINUTE: '100000000',
    VOICE_USER_RATE_PER_HOUR: '1000000000',
  });
  const restore = lendWebSocket();
  let client: SipClient | undefined;
  try {
    const login = await fetch(`${app.demo}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'bench-proxy' }) });
    await json(login);
    const cookie = login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
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

    const direct = await load(`${app.sim}/api/v1/voice/browser-calls/${callId}`, { 'x-api-key': DEFAULT_SIM_API_KEY });
    const proxied = await load(`${app.demo}/voice/browser-calls/${callId}`, { cookie });
    const figures: ProxyFigures = {
      direct,
      proxied,
      addedP50Ms: proxied.p50Ms - direct.p50Ms,
      addedP99Ms: proxied.p99Ms - direct.p99Ms,
      throughputRatio: proxied.requestsPerSecond / direct.requestsPerSecond,
    };
    const clean = direct.non2xx + direct.errors + proxied.non2xx + proxied.errors === 0;
    const rows: Row[] = [
      { figure: `GET call straight to the simulator (${CONNECTIONS} conns, ${DURATION_S} s)`, value: `p50 ${ms(direct.p50Ms)}, p99 ${ms(direct.p99Ms)}, ${direct.requestsPerSecond.toFixed(0)} req/s`, target: 'baseline' },
      { figure: 'GET call through the proxy', value: `p50 ${ms(proxied.p50Ms)}, p99 ${ms(proxied.p99Ms)}, ${proxied.requestsPerSecond.toFixed(0)} req/s`, target: 'every answer 200', met: clean },
      { figure: 'proxy: added latency p50 / p99', value: `${ms(figures.addedP50Ms)} / ${ms(figures.addedP99Ms)}`, target: '—' },
      { figure: 'proxy: throughput as a share of direct', value: `${(100 * figures.throughputRatio).toFixed(0)} %`, target: '—' },
    ];
    return { rows, figures };
  } finally {
    await client?.ua.stop().catch(() => undefined);
    restore();
    await app.stop();
  }
}
