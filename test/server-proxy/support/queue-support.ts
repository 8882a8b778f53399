import { getRequestListener } from '@hono/node-server';
import { createClient } from 'redis';
import { expect } from 'vitest';
import { serializeEvent, webhookHeaders, type QueueEvent } from '../../../contract/queue-webhook.js';
import type { AvailabilityStore } from '../../../server-proxy/desk/availability.js';
import { createVoiceProxy, type QueueOptions, type VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { createMemoryQueueEvents, type QueueEventBus, type QueueUpdate } from '../../../server-proxy/desk/queue-events.js';
import { createRedisAvailability } from '../../../server-proxy/redis/redis-availability.js';
import { createRedisQueueEvents } from '../../../server-proxy/redis/redis-queue-events.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';
import type { World } from '../../simulator/support/sip-world.js';
import { API_KEY, BASE_URL, testAuthenticate, type Fetch } from './harness.js';
import { listenOnLoopback, type LoopbackServer } from './loopback-server.js';

/**
 * What the queue tests share: a signed webhook as the service posts it, a reader of the proxy's event stream,
 * a bus that shows what went through it, the proxy served on a loopback port for the simulator's webhooks, a
 * desk's proxy as every queue test builds it, and one replica's connections to a redis-server.
 */

export const SECRET = 'whsec_proxy_queue_test';

/** A webhook's fields, `call.received` for `callId` in `queueId` unless overridden. */
export const webhook = (fields: Partial<QueueEvent> = {}): QueueEvent => ({
  event: 'call.received',
  callId: 'c_1',
  queueId: 'q_1',
  from: '+12025550123',
  to: '+12025550150',
  state: 'queued',
  ...fields,
});

/** The request the service sends: the sorted body, signed with `secret` unless told otherwise. */
export function webhookRequest(event: QueueEvent, options: { secret?: string | null; body?: string; headers?: Record<string, string>; base?: string } = {}): Request {
  const body = options.body ?? serializeEvent(event);
  const secret = options.secret === undefined ? SECRET : options.secret;
  const headers = { ...webhookHeaders(serializeEvent(event), secret ?? undefined), ...options.headers };
  return new Request(`${options.base ?? 'http://app.test'}/voice/queue-events`, { method: 'POST', headers, body });
}

/** A memory bus that records what was published and counts the subscriptions open now. */
export function recordingBus(): QueueEventBus & { published: QueueUpdate[]; open(): number } {
  const bus = createMemoryQueueEvents();
  const published: QueueUpdate[] = [];
  let open = 0;
  return {
    ...bus,
    published,
    open: () => open,
    async publish(update) {
      published.push(update);
      await bus.publish(update);
    },
    async subscribe(listener, ended) {
      let done = false;
      const finish = () => {
        if (!done) open -= 1;
        done = true;
      };
      const unsubscribe = await bus.subscribe(listener, () => {
        finish();
        ended?.();
      });
      open += 1;
      return () => {
        finish();
        unsubscribe();
      };
    },
  };
}

/** One event of the stream: its name and parsed data, or a comment line. */
export interface StreamEvent {
  event: string;
  data: unknown;
  retry?: number;
}

/** Reads a `text/event-stream` answer as it comes. */
export function readStream(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const events: StreamEvent[] = [];
  const comments: string[] = [];
  let buffer = '';
  let ended = false;
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const fields = block.split('\n');
        const comment = fields.find((line) => line.startsWith(':'));
        if (comment !== undefined) comments.push(comment.slice(1).trim());
        const event = fields.find((line) => line.startsWith('event: '))?.slice(7);
        const data = fields.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
        const retry = fields.find((line) => line.startsWith('retry: '))?.slice(7);
        if (event !== undefined) events.push({ event, data: JSON.parse(data) as unknown, ...(retry === undefined ? {} : { retry: Number(retry) }) });
      }
    }
    ended = true;
  })();
  return {
    events,
    comments,
    ended: () => ended,
    /** Waits until `count` events have come, and answers them. */
    async upTo(count: number): Promise<StreamEvent[]> {
      await expect.poll(() => events.length, { timeout: 5000 }).toBeGreaterThanOrEqual(count);
      return events.slice(0, count);
    },
    /** Goes away, as a closed tab does. */
    async cancel(): Promise<void> {
      await reader.cancel();
      await pump;
    },
  };
}

/** Serves `handler` on a free loopback port (the simulator posts its webhooks there). */
export function serveOnLoopback(handler: (request: Request) => Promise<Response>): Promise<LoopbackServer> {
  return listenOnLoopback(getRequestListener(handler));
}

/**
 * Waits until `reads()` has grown by `more`: so many more re-reads of the queues were made. A check that a re-read
 * changes nothing waits for re-reads, not for a time in which a loaded machine may have made none. Each re-read
 * starts after the last one's end, so all but the newest of them have been acted on when this resolves.
 */
export async function readsPass(reads: () => number, more: number): Promise<void> {
  const from = reads();
  await expect.poll(reads, { timeout: 60_000 }).toBeGreaterThanOrEqual(from + more);
}

/** Makes a queue at the in-process simulator, its webhooks signed with {@link SECRET} and sent to `notifyUrl`. */
export async function createQueue(simulator: Fetch, name: string, notifyUrl = 'http://127.0.0.1:9/voice/queue-events'): Promise<string> {
  const response = await simulator(`${BASE_URL}/v1/voice/queues`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name, holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl, notifySecret: SECRET }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { queue: { id: string } }).queue.id;
}

/** Where a desk's proxy reaches the service: a simulator's address, its key (the SIP worlds' by default) and door. */
export interface DeskService {
  baseUrl: string;
  apiKey?: string;
  fetch?: Fetch;
}

/**
 * A proxy with `queues` as the queue tests build it: the tests' login (`x-test-user`), no per-user limits, no
 * request log; its log lines go to `log` (the proxy's own default when none).
 */
export function deskProxy(service: DeskService, queues: QueueOptions, log?: (line: string) => void): VoiceProxy {
  return createVoiceProxy({
    baseUrl: service.baseUrl,
    apiKey: service.apiKey ?? SIM_TEST_KEY,
    ...(service.fetch ? { fetch: service.fetch } : {}),
    authenticate: testAuthenticate,
    rateLimit: false,
    logger: false,
    ...(log ? { log } : {}),
    queues,
  });
}

/** A queue at a world's simulator whose webhooks reach the proxy `serve` last named; see {@link loopbackQueue}. */
export interface LoopbackQueue {
  queueId: string;
  /** The loopback address's origin. */
  url: string;
  /** From now on, the webhooks and any request to `url` reach `proxy`, as a load balancer sends them to a replica. */
  serve(proxy: VoiceProxy): void;
}

/**
 * Makes the queue "Support" at `w`'s simulator, its webhooks signed with {@link SECRET} and sent to a loopback
 * address that answers 503 until a proxy is served there; the address closes when the test ends (`defer`).
 */
export async function loopbackQueue(w: Pick<World, 'api'>, defer: (cleanup: () => Promise<void>) => void): Promise<LoopbackQueue> {
  let target: VoiceProxy | undefined;
  const served = await serveOnLoopback((request) => (target ? target(request) : Promise.resolve(new Response(null, { status: 503 }))));
  defer(() => served.close());
  const created = await w.api.request<{ queue: { id: string } }>('POST', '/queues', { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: `${served.url}/voice/queue-events`, notifySecret: SECRET });
  return { queueId: created.body.queue.id, url: served.url, serve: (proxy) => void (target = proxy) };
}

/** One proxy replica's connections to a redis-server: its bus, and its availability store. */
export interface RedisReplica {
  events: QueueEventBus;
  availability: AvailabilityStore;
  /** Closes both, as a replica that stops; safe to call again. */
  close(): Promise<void>;
}

/**
 * Connects one replica to the redis-server at `url`: the bus, and the availability store under `availabilityKey`
 * (the store's own key by default); `onStop` closes both when the test (or file) ends.
 */
export async function redisReplica(url: string, onStop: (close: () => Promise<void>) => void, availabilityKey?: string): Promise<RedisReplica> {
  const events = await createRedisQueueEvents({ url });
  const availability = await createRedisAvailability({ url, ...(availabilityKey ? { key: availabilityKey } : {}) });
  let closing: Promise<void> | undefined;
  const close = () => (closing ??= Promise.all([events.close(), availability.close()]).then(() => undefined));
  onStop(close);
  return { events, availability, close };
}

/** Drops every subscribed connection of the redis-server at `url`, as a Redis restart or failover does. */
export async function dropSubscriptions(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
  } finally {
    client.destroy();
  }
}
