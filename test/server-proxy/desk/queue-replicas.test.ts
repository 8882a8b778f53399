import { createClient } from 'redis';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import type { QueueEventBus } from '../../../server-proxy/desk/queue-events.js';
import { createRedisQueueEvents } from '../../../server-proxy/redis/redis-queue-events.js';
import { API_KEY, BASE_URL, createSimulator } from '../support/harness.js';
import { deskProxy, dropSubscriptions, readStream, redisReplica, SECRET, webhook, webhookRequest } from '../support/queue-support.js';
import { freePort, useRedis } from '../support/redis-server.js';

/**
 * Two proxy replicas behind an imagined load balancer, each with its own connections to one real redis-server
 * (`createRedisQueueEvents`): the service's webhook reaches whichever replica, and every agent's event stream,
 * on either replica, shows it once, even when the same webhook reached both.
 */

const { redis, onStop } = useRedis();
let buses: QueueEventBus[] = [];
let replicas: VoiceProxy[] = [];
let streams: Array<ReturnType<typeof readStream>> = [];

beforeAll(async () => {
  const stores = [await redisReplica(redis().url, onStop), await redisReplica(redis().url, onStop)];
  buses = stores.map((store) => store.events);
  const { service, fetch } = createSimulator();
  onStop(() => service.close());
  replicas = stores.map(({ events, availability }) => deskProxy({ baseUrl: BASE_URL, apiKey: API_KEY, fetch }, { notifySecret: SECRET, queuesFor: () => ['q_1'], events, availability }));
});

afterEach(async () => {
  await Promise.all(streams.map((stream) => stream.cancel()));
  streams = [];
});

/** Opens `user`'s event stream at `replica`; resolves once its snapshot came. */
async function follow(replica: VoiceProxy, user: string) {
  const stream = readStream(await replica(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': user } })));
  streams.push(stream);
  await stream.upTo(1);
  return stream;
}

const callIds = (stream: ReturnType<typeof readStream>) => stream.events.slice(1).map((event) => `${event.event} ${(event.data as { callId: string }).callId}`);

describe('REDIS_URL and the queue events', () => {
  it('brings a webhook posted to replica A to the streams on replica B (and A) exactly once', async () => {
    const [a, b] = replicas as [VoiceProxy, VoiceProxy];
    const onB = await follow(b, 'bob');
    const onA = await follow(a, 'alice');
    expect((await a(webhookRequest(webhook({ callId: 'c_once' })))).status).toBe(204);
    // A later event, published after it, proves nothing more of the first is on its way.
    expect((await a(webhookRequest(webhook({ callId: 'c_after_once' })))).status).toBe(204);
    await expect.poll(() => callIds(onB).length).toBe(2);
    await expect.poll(() => callIds(onA).length).toBe(2);
    expect(callIds(onB)).toEqual(['call.received c_once', 'call.received c_after_once']);
    expect(callIds(onA)).toEqual(callIds(onB));
    expect(onB.events[1]?.data).toEqual({ callId: 'c_once', queueId: 'q_1', from: '+12025550123', to: '+12025550150', since: expect.any(String) });
  });

  it('delivers the same webhook posted to both replicas once, and remembers it for a day', async () => {
    const [a, b] = replicas as [VoiceProxy, VoiceProxy];
    const onB = await follow(b, 'bob');
    const answers = await Promise.all([a(webhookRequest(webhook({ callId: 'c_twice' }))), b(webhookRequest(webhook({ callId: 'c_twice' }))), a(webhookRequest(webhook({ callId: 'c_twice' })))]);
    expect(answers.map((answer) => answer.status)).toEqual([204, 204, 204]);
    expect((await b(webhookRequest(webhook({ callId: 'c_after_twice' })))).status).toBe(204);
    await expect.poll(() => callIds(onB).length).toBe(2);
    expect(callIds(onB)).toEqual(['call.received c_twice', 'call.received c_after_twice']);

    const client = createClient({ url: redis().url });
    await client.connect();
    try {
      const ttl = await client.ttl('voice-browser:queue-event:call.received:c_twice');
      expect(ttl).toBeGreaterThan(24 * 3600 - 60);
      expect(ttl).toBeLessThanOrEqual(24 * 3600);
    } finally {
      client.destroy();
    }
  });

  it('brings what one replica publishes itself (a claim) to the other replica’s streams', async () => {
    const [, b] = replicas as [VoiceProxy, VoiceProxy];
    const onB = await follow(b, 'bob');
    await buses[0]?.publish({ event: 'call.claimed', callId: 'c_claimed', queueId: 'q_1' });
    await expect.poll(() => callIds(onB)).toEqual(['call.claimed c_claimed']);
  });

  it('ends the streams when the subscribed connection drops, so pages reconnect to a fresh snapshot instead of missing events', async () => {
    const [, b] = replicas as [VoiceProxy, VoiceProxy];
    const onB = await follow(b, 'bob');
    await dropSubscriptions(redis().url);
    await expect.poll(() => onB.ended()).toBe(true);
    // Once the connection is back, a new stream follows the channel again.
    const reconnect = async () => {
      const response = await b(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': 'bob' } }));
      await response.body?.cancel();
      return response.status;
    };
    await expect.poll(reconnect, { timeout: 10_000 }).toBe(200);
    const again = await follow(b, 'bob');
    await buses[0]?.publish({ event: 'call.claimed', callId: 'c_after_reconnect', queueId: 'q_1' });
    await expect.poll(() => callIds(again)).toEqual(['call.claimed c_after_reconnect']);
  });

  it('refuses to start without Redis, with one line naming where', async () => {
    const port = await freePort();
    await expect(createRedisQueueEvents({ url: `redis://127.0.0.1:${port}` })).rejects.toThrow(`cannot reach Redis at 127.0.0.1:${port}`);
  });
});
