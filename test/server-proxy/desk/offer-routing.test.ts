import { afterEach, describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import type { OfferOptions } from '../../../server-proxy/routes/queue-routes.js';
import { createSimulatorControl } from '../../../simulator/http/control-client.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';
import { useSipWorlds, type RegisteredWorld } from '../../simulator/support/sip-world.js';
import { createHarness, send } from '../support/harness.js';
import { deskProxy, loopbackQueue, recordingBus, SECRET } from '../support/queue-support.js';

/**
 * Offer mode (docs/desk.md, "Offer mode"): the user's availability at `/availability`, and callers of an offer-mode
 * queue dequeued by the proxy to the longest-idle available agent, whose registered SIP.js client the real
 * simulator rings; a decline goes on to the next agent, an offer let ring out sets its agent away, and a caller
 * whose webhook was lost is offered all the same. Waits are generous polls, never timed assertions.
 */

let closers: Array<() => Promise<void>> = [];
/** What the proxies logged, shown when a test fails. */
const lines: string[] = [];
afterEach(async (context) => {
  if (context.task.result?.state === 'fail') console.log(lines.join('\n'));
  lines.length = 0;
  for (const close of closers.reverse()) await close();
  closers = [];
});

describe('the availability route', () => {
  it('keeps each user’s word, away until said, validated at the edge', async () => {
    const h = createHarness({ rateLimit: false, queues: { notifySecret: SECRET, queuesFor: () => [], events: recordingBus() } });
    closers.push(() => h.close());
    expect(await send(h, 'GET', '/voice/availability', { user: 'alice' })).toMatchObject({ status: 200, json: { availability: 'away', since: null } });
    const set = await send(h, 'PUT', '/voice/availability', { user: 'alice', body: { availability: 'available' } });
    expect(set).toMatchObject({ status: 200, json: { availability: 'available' } });
    expect(set.headers.get('cache-control')).toBe('no-store');
    const again = await send(h, 'PUT', '/voice/availability', { user: 'alice', body: { availability: 'available' } });
    expect(again.json['since']).toBe(set.json['since']);
    expect((await send(h, 'GET', '/voice/availability', { user: 'alice' })).json).toEqual(set.json);
    expect((await send(h, 'GET', '/voice/availability', { user: 'bob' })).json).toEqual({ availability: 'away', since: null });
    expect(await send(h, 'PUT', '/voice/availability', { user: 'alice', body: { availability: 'busy' } })).toMatchObject({ status: 400, json: { code: 'invalid_input' } });
    expect(await send(h, 'PUT', '/voice/availability', { user: 'alice', body: {} })).toMatchObject({ status: 400, json: { code: 'missing_fields' } });
    expect(await send(h, 'PUT', '/voice/availability', { user: 'alice', body: { availability: 'away', extra: 1 } })).toMatchObject({ status: 400 });
    expect((await send(h, 'PUT', '/voice/availability', { body: { availability: 'away' } })).status).toBe(401);
  });
});

describe('offer mode on a real simulator, the agents answering with SIP.js', () => {
  const { registeredWorld, session, sipClient, defer } = useSipWorlds();

  /** Alice (the world's agent) and Bob, both registered; a proxy routing one offer-mode queue. */
  async function desk(offers: Partial<OfferOptions> = {}, simulatorOptions: { queueAnswerTimeoutMs?: number } = {}) {
    // A quota wide enough for the test's quick pace; the default's arithmetic is server-proxy/README.md's.
    const w = await registeredWorld({ quota: { perMinute: 10_000, perHour: 100_000 }, ...simulatorOptions });
    const other = await session(w);
    const bobClient = await sipClient(other.transport);
    expect((await bobClient.register(bobClient.registerer(other.transport.registrationExpiresSeconds))).statusCode).toBe(200);
    const bob: RegisteredWorld = { ...other, client: bobClient };
    const bus = recordingBus();
    // The queue's notifyUrl names the proxy's address, and the proxy's offer queues name the queue.
    const { queueId, serve } = await loopbackQueue(w, defer);
    const queues = { notifySecret: SECRET, queuesFor: () => [queueId], events: bus, claimReadIntervalMs: 50, offers: { queues: [queueId], checkIntervalMs: 200, ...offers } };
    const proxy = deskProxy(w.sim, queues, (line) => void lines.push(line));
    serve(proxy);
    defer(() => bus.close());
    const page = { proxy, apiKey: SIM_TEST_KEY };
    const say = async (who: RegisteredWorld, availability: 'available' | 'away') =>
      expect((await send(page, 'PUT', '/voice/availability', { user: who.session.externalSubject, body: { availability } })).status).toBe(200);
    const arrive = async (from: string) => (await w.api.control<{ call: { id: string } }>('POST', '/inbound', { queueId, from, to: '+12025550150' })).body.call;
    const state = async (id: string) => (await w.api.request<{ call: { state: string; agentId: string | null } }>('GET', `/calls/${id}`)).body.call;
    return { w, bob, page, say, arrive, state, control: createSimulatorControl(w.sim.url) };
  }

  const callIdOf = (invitation: Invitation) => invitation.request.getHeader('X-Call-Id');

  it('rings the longest-idle available agent, and a declined caller rings the next one', async () => {
    const d = await desk();
    const alicesRing = d.w.client.nextInvitation();
    await d.say(d.w, 'available');
    await d.say(d.bob, 'available');
    const caller = await d.arrive('+12025550121');
    const first = await alicesRing;
    expect(callIdOf(first)).toBe(caller.id);
    const bobsRing = d.bob.client.nextInvitation();
    await first.reject();
    const second = await bobsRing;
    expect(callIdOf(second)).toBe(caller.id);
    await second.accept();
    await expect.poll(() => d.state(caller.id), { timeout: 10_000 }).toMatchObject({ state: 'established', agentId: d.bob.session.agentId });
  });

  it('offers nobody while every agent is away, and sets away an agent who lets an offer ring out', async () => {
    const d = await desk({ unansweredMs: 200 }, { queueAnswerTimeoutMs: 400 });
    const caller = await d.arrive('+12025550121');
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await d.state(caller.id)).state).toBe('queued');
    const ring = d.w.client.nextInvitation();
    await d.say(d.w, 'available');
    expect(callIdOf(await ring)).toBe(caller.id);
    await expect.poll(async () => (await send(d.page, 'GET', '/voice/availability', { user: d.w.session.externalSubject })).json['availability'], { timeout: 10_000 }).toBe('away');
    expect((await d.state(caller.id)).state).toBe('queued');
  });

  it('offers a caller whose call.received webhook was lost', async () => {
    const d = await desk();
    await d.say(d.w, 'available');
    await d.control.fault({ fault: 'drop-webhook', event: 'call.received' });
    const ring = d.w.client.nextInvitation();
    const caller = await d.arrive('+12025550121');
    expect(callIdOf(await ring)).toBe(caller.id);
  });
});
