import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createDemoApp } from '../demo/server/app.js';
import { createDemoQueues } from '../demo/server/demo-queues.js';
import { createMemoryQueueEvents } from '../server-proxy/desk/queue-events.js';
import { DEFAULT_SIM_API_KEY } from '../simulator/config.js';

/**
 * What the support desk's bench parts share (`queues`, `offers`): moments noted by key and awaited, and the
 * demo server's app in this process, on loopback, with the moment each queue webhook reaches it stamped in front
 * of the app, so no clocks of two processes are compared.
 */

/** How long one step may take before the run fails naming it. */
export const STEP_TIMEOUT_MS = 10_000;

/** Moments by key, noted once; `at` waits for one still to come. */
export function createStamps() {
  const stamps = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  return {
    note(key: string, at: number): void {
      if (stamps.has(key)) return;
      stamps.set(key, at);
      waiting.get(key)?.(at);
    },
    has: (key: string) => stamps.has(key),
    async at(key: string, what: string, timeoutMs = STEP_TIMEOUT_MS): Promise<number> {
      const noted = stamps.get(key);
      if (noted !== undefined) return noted;
      const timeout = AbortSignal.timeout(timeoutMs);
      return new Promise<number>((resolve, reject) => {
        waiting.set(key, resolve);
        timeout.addEventListener('abort', () => reject(new Error(`bench: ${what} (${key}) not seen in ${timeoutMs} ms`)));
      }).finally(() => waiting.delete(key));
    },
  };
}

export type Stamps = ReturnType<typeof createStamps>;

/**
 * The app's handler, noting when each queue webhook reaches it (as `<event>:<callId>`), before the receiver
 * checks its signature; the body is read from a copy, so the app's own reading waits for nothing.
 */
function noteWebhooks(app: { fetch(request: Request): Response | Promise<Response> }, webhooks: Stamps) {
  return (request: Request) => {
    if (request.method === 'POST' && new URL(request.url).pathname === '/voice/queue-events') {
      const at = performance.now();
      void request
        .clone()
        .json()
        .then((event: { event?: string; callId?: string }) => event.event && event.callId && webhooks.note(`${event.event}:${event.callId}`, at))
        .catch(() => undefined);
    }
    return app.fetch(request);
  };
}

/** The desk the parts measure: the app's address, the demo's pulled queue and its offer-mode one. */
export interface BenchDesk {
  url: string;
  queueId: string;
  offerQueueId: string;
  close(): Promise<void>;
}

/**
 * The demo server's app on a free loopback port, against the simulator at `simUrl`, with its queues made there
 * (their `notifyUrl` needs the port, so it listens first, as the demo's server does); with `offers`, its
 * offer-mode queue routed as the demo's server routes it. `close()` also closes the bus, which pauses the
 * router's checks.
 */
export async function startDesk(simUrl: string, webhooks: Stamps, offers?: { wrapUpMs: number }): Promise<BenchDesk> {
  const voice = { baseUrl: `${simUrl}/api`, apiKey: DEFAULT_SIM_API_KEY };
  let serve: RequestListener = (_request, response) => void response.writeHead(503, { 'retry-after': '1' }).end();
  const server = createServer((request, response) => serve(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const events = createMemoryQueueEvents();
  const close = async () => {
    await events.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  let refusal = 'the queues could not be made';
  const queues = await createDemoQueues(voice, `${url}/voice/queue-events`, undefined, (line) => (refusal = line));
  const [queueId] = queues?.ids ?? [];
  const [offerQueueId] = queues?.offerIds ?? [];
  if (!queues || !queueId || !offerQueueId) {
    await close();
    throw new Error(queues ? 'the demo made no offer-mode queue' : refusal);
  }
  const app = createDemoApp({
    voice,
    sessionSecret: randomBytes(32).toString('base64url'),
    demoRoot: fileURLToPath(new URL('../dist/demo', import.meta.url)),
    libRoot: fileURLToPath(new URL('../lib/dist', import.meta.url)),
    // The per-user limits are the proxy's guard for the key's quota, not what is measured here.
    rateLimit: false,
    logLevel: 'warn',
    queues: { notifySecret: queues.notifySecret, queuesFor: () => queues.ids, events, ...(offers ? { offers: { queues: queues.offerIds, wrapUpMs: offers.wrapUpMs } } : {}) },
  });
  serve = getRequestListener(noteWebhooks(app, webhooks));
  return { url, queueId, offerQueueId, close };
}
