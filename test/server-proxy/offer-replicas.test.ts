import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import { createVoiceProxy, type VoiceProxy } from '../../server-proxy/proxy.js';
import type { AvailabilityStore } from '../../server-proxy/availability.js';
import type { QueueEventBus } from '../../server-proxy/queue-events.js';
import { createRedisAvailability } from '../../server-proxy/redis-availability.js';
import { createRedisQueueEvents } from '../../server-proxy/redis-queue-events.js';
import { SIM_TEST_KEY } from '../simulator/support/sim-api.js';
import { useSipWorlds } from '../simulator/support/sip-world.js';
import { send, testAuthenticate } from './harness.js';
import { SECRET, serveOnLoopback } from './queue-support.js';
import { useRedis } from './redis-server.js';

/**
 * Offer mode on two replicas sharing one redis-server (the bus with its leases, and the availability store): a
 * user's word said to one replica is the other's too, and a replica stopped mid-offer, its Redis connections cut
 * and its leases left to lapse, leaves nothing stuck: the caller, unanswered, is back at the head, and the other
 * replica offers it and it is answered, once.
 */

const { redis, onStop } = useRedis();

describe('the availability store on Redis', () => {
  it('keeps each user’s record in one hash, and reads past a field that is not a record', async () => {
    const store = await createRedisAvailability({ url: redis().url, key: 'offer-replicas:store' });
    const record = { subject: 'alice', agentId: 'ag_1', availability: 'available' as const, since: 1000, queues: ['q_1'] };
    await store.set(record);
    const client = createClient({ url: redis().url });
    await client.connect();
    try {
      await client.hSet('offer-replicas:store', { bob: 'not json', carol: JSON.stringify({ ...record, subject: 'carol', availability: 'busy' }) });
    } finally {
      client.destroy();
    }
    expect(await store.get('alice')).toEqual(record);
    expect(await store.get('bob')).toBeNull();
    expect(await store.all()).toEqual([record]);
    // Closed here: the SIP suite below checks that no socket outlives its tests.
    await store.close();
  });
});

describe('offer mode across replicas on Redis', () => {
  const { registeredWorld, defer } = useSipWorlds();

  it('shares availability, and carries on when the replica that made an offer stops mid-offer', async () => {
    // A quota wide enough for the test's quick pace; the default's arithmetic is server-proxy/README.md's.
    const w = await registeredWorld({ queueAnswerTimeoutMs: 1500, quota: { perMinute: 10_000, perHour: 100_000 } });
    let target: VoiceProxy | undefined;
    const served = await serveOnLoopback((request) => (target ? target(request) : Promise.resolve(new Response(null, { status: 503 }))));
    defer(() => served.close());
    const created = await w.api.request<{ queue: { id: string } }>('POST', '/queues', { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: `${served.url}/voice/queue-events`, notifySecret: SECRET });
    const queueId = created.body.queue.id;

    const replica = async (): Promise<{ proxy: VoiceProxy; events: QueueEventBus; availability: AvailabilityStore }> => {
      const events = await createRedisQueueEvents({ url: redis().url });
      const availability = await createRedisAvailability({ url: redis().url });
      defer(async () => void (await Promise.all([events.close(), availability.close()])));
      const proxy = createVoiceProxy({
        baseUrl: w.sim.baseUrl,
        apiKey: SIM_TEST_KEY,
        authenticate: testAuthenticate,
        rateLimit: false,
        logger: false,
        log: () => undefined,
        queues: { notifySecret: SECRET, queuesFor: () => [queueId], events, availability, claimReadIntervalMs: 50, offers: { queues: [queueId], checkIntervalMs: 200 } },
      });
      return { proxy, events, availability };
    };
    const alice = w.session.externalSubject;

    const a = await replica();
    target = a.proxy;
    const firstRing = w.client.nextInvitation();
    expect((await send({ proxy: a.proxy, apiKey: SIM_TEST_KEY }, 'PUT', '/voice/availability', { user: alice, body: { availability: 'available' } })).status).toBe(200);
    const caller = (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId, from: '+12025550121', to: '+12025550150' })).body.call;
    const first = await firstRing;
    expect(first.request.getHeader('X-Call-Id')).toBe(caller.id);

    // Replica B comes up and reads what A was told; then A stops mid-offer, its connections cut, its leases kept.
    const b = await replica();
    expect((await send({ proxy: b.proxy, apiKey: SIM_TEST_KEY }, 'GET', '/voice/availability', { user: alice })).json).toMatchObject({ availability: 'available' });
    const secondRing = w.client.nextInvitation();
    target = b.proxy;
    await a.events.close();
    await a.availability.close();

    // Nobody answers the first ring; the service puts the caller back; B, once A's lease lapsed, offers it again.
    const second: Invitation = await secondRing;
    expect(second.request.getHeader('X-Call-Id')).toBe(caller.id);
    await second.accept();
    const state = async () => (await w.api.request<{ call: { state: string; agentId: string | null } }>('GET', `/calls/${caller.id}`)).body.call;
    await expect.poll(state, { timeout: 15_000 }).toMatchObject({ state: 'established', agentId: w.session.agentId });
  }, 60_000);

  it('offers again once a page comes back after Redis dropped the bus’s subscription', async () => {
    const w = await registeredWorld({ quota: { perMinute: 10_000, perHour: 100_000 } });
    let target: VoiceProxy | undefined;
    const served = await serveOnLoopback((request) => (target ? target(request) : Promise.resolve(new Response(null, { status: 503 }))));
    defer(() => served.close());
    const created = await w.api.request<{ queue: { id: string } }>('POST', '/queues', { name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: `${served.url}/voice/queue-events`, notifySecret: SECRET });
    const queueId = created.body.queue.id;
    const events = await createRedisQueueEvents({ url: redis().url });
    const availability = await createRedisAvailability({ url: redis().url, key: 'offer-replicas:dropped' });
    defer(async () => void (await Promise.all([events.close(), availability.close()])));
    const proxy = createVoiceProxy({
      baseUrl: w.sim.baseUrl,
      apiKey: SIM_TEST_KEY,
      authenticate: testAuthenticate,
      rateLimit: false,
      logger: false,
      log: () => undefined,
      queues: { notifySecret: SECRET, queuesFor: () => [queueId], events, availability, claimReadIntervalMs: 50, offers: { queues: [queueId], checkIntervalMs: 200 } },
    });
    target = proxy;
    const alice = w.session.externalSubject;
    expect((await send({ proxy, apiKey: SIM_TEST_KEY }, 'PUT', '/voice/availability', { user: alice, body: { availability: 'available' } })).status).toBe(200);

    const client = createClient({ url: redis().url });
    await client.connect();
    try {
      await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    } finally {
      client.destroy();
    }
    const ring = w.client.nextInvitation();
    const caller = (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId, from: '+12025550121', to: '+12025550150' })).body.call;
    // The page's event stream comes back, as it does after a drop; the offers resume with it.
    const reconnect = async () => {
      const response = await proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': alice } }));
      await response.body?.cancel();
      return response.status;
    };
    await expect.poll(reconnect, { timeout: 10_000 }).toBe(200);
    expect((await ring).request.getHeader('X-Call-Id')).toBe(caller.id);
  }, 60_000);
});
