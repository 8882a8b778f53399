import { Agent, createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createDemoApp } from '../server-proxy/app.js';
import { createBareRelay } from './bare-relay.js';
import { quantile } from './stats.js';

/**
 * The proxy's own CPU per read with nothing else on the machine in the way: the demo app (proxy inside, as
 * `npm start` serves it), a bare relay (bare-relay.ts) and a stand-in service all run in this one process,
 * and the same reads are made straight to the stand-in, through the proxy and through the relay. What this
 * process spends per read beyond the straight read is the relay's own work, server side and client side.
 *
 * @remarks
 * The stand-in answers every read with one real call read taken from the simulator (body and rate-limit
 * headers), so the proxy parses, checks and relays what it would in production. Under autocannon the three
 * processes of the other figures share two cores; here nothing competes but the host's other guests, which
 * still move every figure, so compare proxy versions by the proxy's figure over the bare relay's.
 */

/** One read as the service answered it. */
export interface ServiceAnswer {
  body: string;
  headers: Record<string, string>;
}

export interface ProxyCpuFigures {
  /** Median over {@link RUNS} of each run's CPU per read beyond the straight read, in µs. */
  proxyUs: number;
  bareUs: number;
  /** CPU per straight read (client and stand-in), µs. */
  directUs: number;
}

const READS = 4000;
const IN_FLIGHT = 8;
const RUNS = 10;
const SECRET = 'bench-proxy-cpu-session-secret-0123456789';

/** Logs in to the demo at `demoUrl` as `username`; resolves with the `Cookie` header that carries it. */
export async function logInCookie(demoUrl: string, username: string): Promise<string> {
  const login = await fetch(`${demoUrl}/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username }) });
  if (!login.ok) throw new Error(`${login.url}: ${login.status} ${await login.text()}`);
  return login.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** CPU µs this process spends per read of `url`, {@link READS} reads, {@link IN_FLIGHT} at a time. */
async function cpuPerRead(url: string, headers: Record<string, string>, agent: Agent): Promise<number> {
  const one = () =>
    new Promise<void>((resolve, reject) => {
      get(url, { headers, agent }, (response) => {
        response.resume();
        response.once('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`${url}: ${response.statusCode}`))));
      }).once('error', reject);
    });
  const before = process.cpuUsage();
  for (let done = 0; done < READS; done += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, one));
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / READS;
}

/** Measures as the file comment says; `callId` is the read's id and `username` the login that owns it. */
export async function measureProxyCpu(answer: ServiceAnswer, callId: string, username: string, apiKey: string): Promise<ProxyCpuFigures> {
  const service = createServer((_request, response) => {
    response.writeHead(200, { ...answer.headers, 'content-type': 'application/json' });
    response.end(answer.body);
  });
  const serviceUrl = await listen(service);
  const app = createDemoApp({ voice: { baseUrl: `${serviceUrl}/api`, apiKey }, sessionSecret: SECRET, demoRoot: '.', libRoot: '.', rateLimit: { perMinute: 1e9, perHour: 1e10 } });
  const demo = createServer(getRequestListener(app.fetch));
  const relay = createBareRelay(serviceUrl, apiKey);
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  try {
    const [demoUrl, relayUrl] = [await listen(demo), await listen(relay)];
    const cookie = await logInCookie(demoUrl, username);
    const path = `/api/v1/voice/browser-calls/${callId}`;
    const paths = {
      direct: () => cpuPerRead(`${serviceUrl}${path}`, {}, agent),
      proxied: () => cpuPerRead(`${demoUrl}/voice/browser-calls/${callId}`, { cookie }, agent),
      bare: () => cpuPerRead(`${relayUrl}${path}`, {}, agent),
    };
    for (const read of Object.values(paths)) await read(); // warm-up: sockets open, code compiled
    const direct: number[] = [];
    const proxy: number[] = [];
    const bare: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const straight = await paths.direct();
      direct.push(straight);
      proxy.push((await paths.proxied()) - straight);
      bare.push((await paths.bare()) - straight);
    }
    return { proxyUs: quantile(proxy, 0.5), bareUs: quantile(bare, 0.5), directUs: quantile(direct, 0.5) };
  } finally {
    agent.destroy();
    for (const server of [demo, relay, service]) {
      server.closeAllConnections();
      server.close();
    }
  }
}
