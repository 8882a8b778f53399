import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import { createRedisAvailability } from '../../../server-proxy/redis/redis-availability.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';
import { useSipWorlds, type RegisteredWorld } from '../../simulator/support/sip-world.js';
import { send } from '../support/harness.js';
import { deskProxy, dropSubscriptions, loopbackQueue, redisReplica, SECRET } from '../support/queue-support.js';
import { useRedis } from '../support/redis-server.js';

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

  /** A replica routing `queueId` in offer mode, on its own connections to the redis-server, closed after the test. */
  async function offerReplica(w: RegisteredWorld, queueId: string, availabilityKey?: string) {
    const stores = await redisReplica(redis().url, defer, availabilityKey);
    const proxy = deskProxy(w.sim, { notifySecret: SECRET, queuesFor: () => [queueId], events: stores.events, availability: stores.availability, claimReadIntervalMs: 50, offers: { queues: [queueId], checkIntervalMs: 200 } }, () => undefined);
    return { ...stores, proxy };
  }

  it('shares availability, and carries on when the replica that made an offer stops mid-offer', async () => {
    // A quota wide enough for the test's quick pace; the default's arithmetic is server-proxy/README.md's.
    const w = await registeredWorld({ queueAnswerTimeoutMs: 1500, quota: { perMinute: 10_000, perHour: 100_000 } });
    const queue = await loopbackQueue(w, defer);
    const queueId = queue.queueId;
    const alice = w.session.externalSubject;

    const a = await offerReplica(w, queueId);
    queue.serve(a.proxy);
    const firstRing = w.client.nextInvitation();
    expect((await send({ proxy: a.proxy, apiKey: SIM_TEST_KEY }, 'PUT', '/voice/availability', { user: alice, body: { availability: 'available' } })).status).toBe(200);
    const caller = (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId, from: '+12025550121', to: '+12025550150' })).body.call;
    const first = await firstRing;
    expect(first.request.getHeader('X-Call-Id')).toBe(caller.id);

    // Replica B comes up and reads what A was told; then A stops mid-offer, its connections cut, its leases kept.
    const b = await offerReplica(w, queueId);
    expect((await send({ proxy: b.proxy, apiKey: SIM_TEST_KEY }, 'GET', '/voice/availability', { user: alice })).json).toMatchObject({ availability: 'available' });
    const secondRing = w.client.nextInvitation();
    queue.serve(b.proxy);
    await a.close();

    // Nobody answers the first ring; the service puts the caller back; B, once A's lease lapsed, offers it again.
    const second: Invitation = await secondRing;
    expect(second.request.getHeader('X-Call-Id')).toBe(caller.id);
    await second.accept();
    const state = async () => (await w.api.request<{ call: { state: string; agentId: string | null } }>('GET', `/calls/${caller.id}`)).body.call;
    await expect.poll(state, { timeout: 15_000 }).toMatchObject({ state: 'established', agentId: w.session.agentId });
  }, 60_000);

  it('offers again once a page comes back after Redis dropped the bus’s subscription', async () => {
    const w = await registeredWorld({ quota: { perMinute: 10_000, perHour: 100_000 } });
    const queue = await loopbackQueue(w, defer);
    const { proxy } = await offerReplica(w, queue.queueId, 'offer-replicas:dropped');
    queue.serve(proxy);
    const alice = w.session.externalSubject;
    expect((await send({ proxy, apiKey: SIM_TEST_KEY }, 'PUT', '/voice/availability', { user: alice, body: { availability: 'available' } })).status).toBe(200);

    await dropSubscriptions(redis().url);
    const ring = w.client.nextInvitation();
    const caller = (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId: queue.queueId, from: '+12025550121', to: '+12025550150' })).body.call;
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
