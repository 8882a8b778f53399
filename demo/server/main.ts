import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { ConfigError } from '../../contract/environment.js';
import { createDemoApp } from './app.js';
import { parseConfig, type Config, type Rate } from './config.js';
import { createDemoQueues, type DemoQueues } from './demo-queues.js';
import { createMemoryAvailability, type AvailabilityStore } from '../../server-proxy/desk/availability.js';
import { createMemoryQueueEvents, type QueueEventBus } from '../../server-proxy/desk/queue-events.js';
import { createRedisAvailability } from '../../server-proxy/redis/redis-availability.js';
import { createRedisBudgetStore } from '../../server-proxy/redis/redis-budget-store.js';
import { createRedisQueueEvents } from '../../server-proxy/redis/redis-queue-events.js';
import { createRedisRateStore } from '../../server-proxy/redis/redis-rate-store.js';
import { checkService } from './service-check.js';

/**
 * `npm start`: the proxy serving the demo on HOST:PORT, with the embedded simulator on SIM_PORT unless
 * VOICE_BASE_URL points at a real service (checked before the demo listens), and the support desk's two queues
 * made at the service once the demo's port is known (demo-queues.ts), one pulled and one in offer mode. SIGTERM
 * or Ctrl-C drains it: the queue event streams end, no new connections, the requests in flight finish (10 s at
 * most), then Redis and the simulator close and the process exits 0.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The voice service the proxy forwards to: configured, and listening once `start()` resolves. */
interface Upstream {
  /** The key's quota when it is known, for the per-user limits. */
  quota: Rate | undefined;
  /** `simulatorUrl`: the embedded simulator's address, whose control API makes callers arrive on demand. */
  /** `sipEdgeUrl`: an edge in front of the embedded simulator (SIM_SIP_EDGE_URL), where the pages' SIP goes. */
  start(): Promise<{ voice: NonNullable<Config['voice']>; simulatorUrl?: string; sipEdgeUrl?: string; close(): Promise<void>; said: string[] }>;
}

/** A real service at VOICE_BASE_URL: nothing to start, but proven to answer and to take the key. */
function configuredUpstream(voice: NonNullable<Config['voice']>): Upstream {
  return {
    quota: undefined,
    start: async () => {
      await checkService(voice);
      return { voice, close: async () => {}, said: [`voice service at ${voice.baseUrl} (VOICE_BASE_URL)`] };
    },
  };
}

/**
 * The embedded simulator, with its own configuration (SIM_*). The only import of simulator/ in the proxy, and
 * a dynamic one: a deployment with VOICE_BASE_URL never loads werift or ws (DESIGN.md, "What we build").
 */
async function embeddedSimulator(env: Record<string, string | undefined>): Promise<Upstream> {
  const { describeApiKey, describeMediaAddresses, describeQuota, parseSimulatorConfig, startedKeyQuota, startSimulator } = await import('../../simulator/embedded.js');
  // The demo's key has a quota sized for the README's walkthroughs; the simulator's own default stays spec 8's.
  const config = parseSimulatorConfig(env, { demo: true });
  return {
    quota: startedKeyQuota(config),
    start: async () => {
      const simulator = await startSimulator(config);
      const sip = config.sipEdgeUrl ? `${config.sipEdgeUrl} (an edge relaying to the simulator's SIP over UDP, 127.0.0.1:${simulator.sipUdpPort ?? '?'})` : `${simulator.url.replace(/^http/, 'ws')}/sip`;
      const said = [
        `simulator on ${simulator.url} (embedded, the voice service the demo calls through: REST ${simulator.baseUrl}/v1/voice, SIP ${sip})`,
        `simulator media on ${describeMediaAddresses(config)}`,
        `simulator API key: ${describeApiKey(config, env)}`,
        describeQuota(config),
      ];
      const edge = config.sipEdgeUrl ? { sipEdgeUrl: config.sipEdgeUrl } : {};
      return { voice: { baseUrl: simulator.baseUrl, apiKey: config.apiKey }, simulatorUrl: simulator.url, ...edge, close: () => simulator.close(), said };
    },
  };
}

async function main(): Promise<void> {
  const config = parseConfig(process.env);
  const upstream = config.voice ? configuredUpstream(config.voice) : await embeddedSimulator(process.env);
  // First, so an unreachable Redis stops start-up before anything listens.
  const store = config.redisUrl ? await createRedisRateStore({ url: config.redisUrl }) : undefined;
  // Every replica on this Redis spends the key's one budget.
  const budgetStore = config.redisUrl ? await createRedisBudgetStore({ url: config.redisUrl }) : undefined;
  // A webhook that reached one replica reaches the agents of every replica.
  const events: QueueEventBus = config.redisUrl ? await createRedisQueueEvents({ url: config.redisUrl }) : createMemoryQueueEvents();
  // Every replica offers callers from the same agents' word.
  const availability = config.redisUrl ? await createRedisAvailability({ url: config.redisUrl }) : createMemoryAvailability();
  const running = await upstream.start();
  // Listening first: the queues' notifyUrl needs the port. Until the app is built, a request is told to retry.
  let serve: RequestListener = (_request, response) => void response.writeHead(503, { 'retry-after': '1' }).end();
  const server = createServer((request, response) => serve(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const queues = await createDemoQueues(running.voice, `http://${config.host === '::1' ? '[::1]' : '127.0.0.1'}:${port}/voice/queue-events`, config.queueSecret);
  const app = createDemoApp({
    voice: running.voice,
    sessionSecret: config.sessionSecret,
    demoRoot: `${root}dist/demo`,
    libRoot: `${root}lib/dist`,
    // With the embedded simulator its quota is known, so the limits follow it.
    rateLimit: { ...config.userRate(upstream.quota), ...(store ? { store } : {}) },
    ...(budgetStore ? { budget: { store: budgetStore } } : {}),
    ...(queues ? { queues: demoQueueOptions(queues, events, availability) } : {}),
    // Callers on demand only where a simulator can act them: never in front of a real service.
    ...(queues && running.simulatorUrl ? { callers: { simulatorUrl: running.simulatorUrl, queues: queues.named } } : {}),
    ...(running.sipEdgeUrl ? { sipEdgeUrls: [running.sipEdgeUrl] } : {}),
    logLevel: config.logLevel,
  });
  serve = getRequestListener(app.fetch);
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  // The demo first, what it talks to next, then how to stop: what a newcomer reads, in that order.
  console.log(`demo on http://${host}:${port} (open it in Chrome or Firefox, log in with any name)`);
  for (const line of running.said) console.log(line);
  console.log(`Ctrl-C stops ${config.voice ? 'the demo' : 'the demo and the simulator'}`);
  // One readiness read now: its answer shows the key's quota, and the proxy says what it serves.
  void app.request('/readyz');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    // First: an open event stream is a request that never finishes by itself, and would hold the drain.
    await events.close();
    await drain(server);
    await Promise.all([running.close(), store?.close?.(), budgetStore?.close?.(), availability.close()]);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

/**
 * The demo's `queues` option: every user may see and take both queues, and the offer-mode one rings its
 * callers at the longest-idle available agent, who gets a short wrap-up after each call (server-proxy/README.md,
 * "Offer mode").
 */
function demoQueueOptions({ notifySecret, ids, offerIds }: DemoQueues, events: QueueEventBus, availability: AvailabilityStore) {
  return { notifySecret, queuesFor: () => ids, events, availability, offers: { queues: offerIds, wrapUpMs: DEMO_WRAP_UP_MS } };
}

/** The demo agent's wrap-up after an offered call: long enough to see, short enough not to hold a tester up. */
const DEMO_WRAP_UP_MS = 2000;

/** How long requests in flight may take to finish once the server is told to stop. */
const DRAIN_MS = 10_000;

/**
 * Stops taking connections and lets the requests in flight finish, for at most {@link DRAIN_MS}; then closes
 * whatever is left. An idle keep-alive connection is closed at once, and each as it turns idle.
 */
async function drain(server: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const idle = setInterval(() => server.closeIdleConnections(), 100);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, DRAIN_MS)));
  server.closeIdleConnections();
  await Promise.race([closed, late]);
  clearInterval(idle);
  clearTimeout(timer);
  server.closeAllConnections();
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(error.message);
  else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(`start-up: port ${(error as { port?: number }).port ?? ''} is in use; set PORT or SIM_PORT to a free one`);
  } else console.error('start-up failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
