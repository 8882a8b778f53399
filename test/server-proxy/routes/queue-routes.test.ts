import { afterEach, describe, expect, it } from 'vitest';
import type { Invitation } from 'sip.js';
import { isCleanup, routePath, routeTemplate } from '../../../server-proxy/routes/routes.js';
import { SIM_TEST_KEY } from '../../simulator/support/sim-api.js';
import { useSipWorlds, type RegisteredWorld } from '../../simulator/support/sip-world.js';
import { createHarness, send, type Fetch, type Harness, type PageResponse } from '../support/harness.js';
import { createQueue, deskProxy, loopbackQueue, readStream, recordingBus, SECRET } from '../support/queue-support.js';

/**
 * The support desk's routes (docs/desk.md): the user's queues, the dequeue that claims the head
 * caller for the user's own agent (only in an allowed queue), the claimed call watched until it is settled,
 * and the reads and hangup of a call bridged to the user's agent, every other call answered as unknown.
 */

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** A proxy with queues on the in-process simulator (no SIP: no agent of it is registered). */
function queueHarness(options: { allowed: () => readonly string[]; wrap?: (simulator: Fetch) => Fetch; rateLimit?: { perMinute: number } }) {
  const bus = recordingBus();
  const h = createHarness({
    rateLimit: options.rateLimit ?? false,
    ...(options.wrap ? { wrap: options.wrap } : {}),
    queues: { notifySecret: SECRET, queuesFor: options.allowed, events: bus, claimReadIntervalMs: 10 },
  });
  closers.push(() => h.close());
  return { h, bus };
}

/** The same answer, byte for byte: status, body and every header but the request's own id and time. */
const sameAnswer = (answer: PageResponse) => ({
  status: answer.status,
  text: answer.text,
  headers: [...answer.headers].filter(([name]) => name !== 'x-request-id' && name !== 'server-timing').sort(),
});

describe('the queue routes on the in-process service', () => {
  it('lists the user’s queues by id and name, and only those queuesFor allows', async () => {
    let allowed: string[] = [];
    const { h } = queueHarness({ allowed: () => allowed });
    const support = await createQueue(h.simulator, 'Support');
    await createQueue(h.simulator, 'Sales');
    allowed = [support, 'q_not_at_the_service'];
    const listed = await send(h, 'GET', '/voice/queues', { user: 'alice' });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('cache-control')).toBe('no-store');
    expect(listed.json).toEqual({ queues: [{ id: support, name: 'Support' }] });
    expect((await send(h, 'GET', '/voice/queues')).status).toBe(401);
  });

  it('answers a dequeue of a queue not allowed as one of an unknown queue, byte for byte, and asks nothing of it', async () => {
    const { h, bus } = queueHarness({ allowed: () => ['q_allowed'] });
    const sales = await createQueue(h.simulator, 'Sales');
    const answers = await Promise.all([sales, 'q_unknown', '-q_allowed', 'q_allowed%2F..%2Fx', 'q%20allowed'].map((id) => send(h, 'POST', `/voice/queues/${id}/dequeue`, { user: 'alice', body: {} })));
    expect(answers[0]?.json).toEqual({ error: 'no such queue', code: 'not_found' });
    for (const answer of answers) expect(sameAnswer(answer)).toEqual(sameAnswer(answers[0] as PageResponse));
    expect(h.seen.filter((request) => request.path.startsWith('/queues'))).toEqual([]);
    expect(bus.published).toEqual([]);
  });

  it("relays the service's refusal of a dequeue (the agent's page is not registered) and publishes nothing", async () => {
    let queueId = '';
    const { h, bus } = queueHarness({ allowed: () => [queueId] });
    queueId = await createQueue(h.simulator, 'Support');
    h.service.queues.arrive({ queueId, from: '+12025550121', to: '+12025550150' });
    const refused = await send(h, 'POST', `/voice/queues/${queueId}/dequeue`, { user: 'alice', body: {} });
    expect(refused).toMatchObject({ status: 409, json: { code: 'browser_session_unavailable' } });
    // The dequeue named the user's own agent, made for the user on the way.
    const agent = (await h.simulator('http://sim.test/api/v1/voice/agents?externalSubject=alice', { headers: { 'x-api-key': h.apiKey } }).then((r) => r.json())) as { agents: Array<{ id: string }> };
    expect(h.seen.find((request) => request.path === `/queues/${queueId}/dequeue`)?.body).toEqual({ connectTo: agent.agents[0]?.id });
    expect(bus.published).toEqual([]);
    expect((await send(h, 'POST', `/voice/queues/${queueId}/dequeue`, { user: 'alice', body: { connectTo: 'ag_other' } })).json).toMatchObject({ code: 'invalid_input' });
  });

  it('answers a dequeue whose answer was lost 504 dequeue_outcome_unknown, never a 4xx', async () => {
    let queueId = '';
    const wrap = (simulator: Fetch): Fetch => async (input, init) => {
      if (String(input).endsWith('/dequeue')) {
        await simulator(input, init);
        throw new TypeError('socket hang up');
      }
      return simulator(input, init);
    };
    const { h, bus } = queueHarness({ allowed: () => [queueId], wrap });
    queueId = await createQueue(h.simulator, 'Support');
    expect(await send(h, 'POST', `/voice/queues/${queueId}/dequeue`, { user: 'alice', body: {} })).toMatchObject({ status: 504, json: { code: 'dequeue_outcome_unknown' } });
    expect(bus.published).toEqual([]);
  });

  it('never refuses the hangup of a queue call for the user’s rate, as it never refuses a browser call’s', async () => {
    const { h } = queueHarness({ allowed: () => [], rateLimit: { perMinute: 2 } });
    for (let i = 0; i < 2; i += 1) expect((await send(h, 'GET', '/voice/calls', { user: 'alice' })).status).toBe(200);
    expect((await send(h, 'GET', '/voice/calls', { user: 'alice' })).status).toBe(429);
    expect((await send(h, 'POST', '/voice/calls/c_unknown/hangup', { user: 'alice', body: {} })).json).toEqual({ error: 'no such call', code: 'not_found' });
    expect(isCleanup('POST', '/calls/c_1/hangup')).toBe(true);
    expect(isCleanup('GET', '/calls/c_1')).toBe(false);
  });

  it('routes the queue paths under any prefix, a prefix with a route segment in it included, and logs them without ids', () => {
    const path = (url: string) => routePath(new Request(url));
    expect(path('http://app.test/voice/queue-events')).toBe('/queue-events');
    expect(path('http://app.test/queue-events')).toBe('/queue-events');
    expect(path('http://app.test/api/phone/queues/q_1/dequeue')).toBe('/queues/q_1/dequeue');
    expect(path('http://app.test/voice/calls/c_1/hangup')).toBe('/calls/c_1/hangup');
    expect(path('http://app.test/voice/queues')).toBe('/queues');
    // A prefix that names a route segment is passed over when what follows it is no route.
    expect(path('http://app.test/calls/voice/browser-sessions')).toBe('/browser-sessions');
    expect(path('http://app.test/queues/app/calls/c_1')).toBe('/calls/c_1');
    expect(path('http://app.test/voice/browser-sessions/calls')).toBe('/browser-sessions/calls');
    expect(routeTemplate('/calls/c_1/hangup')).toBe('/calls/:id/hangup');
    expect(routeTemplate('/queues/q_1/dequeue')).toBe('/queues/:id/dequeue');
  });
});

/** A service whose dequeue and call reads are scripted: the call's states as successive reads show them. */
function scriptedDesk(states: string[]) {
  const call = { id: 'c_1', direction: 'inbound', queueId: 'q_1', from: '+12025550121', to: '+12025550150', agentId: 'ag_x', createdAt: '2026-01-01T00:00:00.000Z', endedAt: null };
  let reads = 0;
  const wrap =
    (simulator: Fetch): Fetch =>
    async (input, init) => {
      const url = String(input);
      if (url.endsWith('/queues/q_1/dequeue')) return Response.json({ call: { ...call, state: 'dequeuing' } });
      if (url.endsWith('/calls/c_1')) return Response.json({ call: { ...call, state: states[Math.min(reads++, states.length - 1)] } });
      return simulator(input, init);
    };
  return { wrap, reads: () => reads };
}

describe('the watch over a claimed call', () => {
  it('publishes call.claimed, then call.requeued with the caller at the head when the call is back in queued', async () => {
    const desk = scriptedDesk(['dequeuing', 'dequeuing', 'queued']);
    const { h, bus } = queueHarness({ allowed: () => ['q_1'], wrap: desk.wrap });
    const claimed = await send(h, 'POST', '/voice/queues/q_1/dequeue', { user: 'alice', body: {} });
    expect(claimed).toMatchObject({ status: 200, json: { call: { id: 'c_1', state: 'dequeuing' } } });
    expect(bus.published).toEqual([{ event: 'call.claimed', callId: 'c_1', queueId: 'q_1' }]);
    await expect.poll(() => bus.published.length).toBe(2);
    expect(bus.published[1]).toEqual({ event: 'call.requeued', callId: 'c_1', queueId: 'q_1', from: '+12025550121', to: '+12025550150', since: '2026-01-01T00:00:00.000Z' });
    expect(desk.reads()).toBe(3);
  });

  it('stops reading once the call is established, publishing nothing more', async () => {
    const desk = scriptedDesk(['dequeuing', 'established']);
    const { h, bus } = queueHarness({ allowed: () => ['q_1'], wrap: desk.wrap });
    expect((await send(h, 'POST', '/voice/queues/q_1/dequeue', { user: 'alice', body: {} })).status).toBe(200);
    await expect.poll(() => desk.reads()).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(desk.reads()).toBe(2);
    expect(bus.published.map((update) => update.event)).toEqual(['call.claimed']);
  });

  it('stops when the bus closes', async () => {
    const desk = scriptedDesk(['dequeuing']);
    const { h, bus } = queueHarness({ allowed: () => ['q_1'], wrap: desk.wrap });
    expect((await send(h, 'POST', '/voice/queues/q_1/dequeue', { user: 'alice', body: {} })).status).toBe(200);
    await expect.poll(() => desk.reads()).toBeGreaterThanOrEqual(1);
    await bus.close();
    const stopped = desk.reads();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(desk.reads()).toBeLessThanOrEqual(stopped + 1);
  });
});

describe('the queue routes on a real simulator, the agent answering with SIP.js', () => {
  const { registeredWorld, defer } = useSipWorlds();

  /** The world's agent is alice's (its externalSubject is her id); bob is another agent of the desk. */
  async function desk(simulatorOptions: { queueAnswerTimeoutMs?: number } = {}) {
    const w = await registeredWorld(simulatorOptions);
    const bus = recordingBus();
    const served = await loopbackQueue(w, defer);
    const queueId = served.queueId;
    const proxy = deskProxy(w.sim, { notifySecret: SECRET, queuesFor: () => [queueId], events: bus, claimReadIntervalMs: 50 });
    served.serve(proxy);
    const page = { proxy, apiKey: SIM_TEST_KEY };
    const alice = w.session.externalSubject;
    /** A caller arrives; resolves once its webhook went through the proxy's receiver. */
    const arrive = async (from: string) => {
      const arrived = await w.api.control<{ call: { id: string; createdAt: string } }>('POST', '/inbound', { queueId, from, to: '+12025550150' });
      await expect.poll(() => bus.published.some((update) => update.callId === arrived.body.call.id)).toBe(true);
      return arrived.body.call;
    };
    /** `user`'s event stream, over the loopback socket as a page has it. */
    const follow = async (user: string) => {
      const abort = new AbortController();
      const stream = readStream(await fetch(`${served.url}/voice/queue-events`, { headers: { 'x-test-user': user }, signal: abort.signal }));
      defer(async () => {
        abort.abort();
        await stream.cancel().catch(() => undefined);
      });
      return stream;
    };
    const dequeue = async (w: RegisteredWorld, user: string): Promise<{ answer: PageResponse; invitation: Promise<Invitation> }> => {
      const invitation = w.client.nextInvitation();
      return { answer: await send(page, 'POST', `/voice/queues/${queueId}/dequeue`, { user, body: {} }), invitation };
    };
    return { w, bus, page, alice, queueId: () => queueId, arrive, follow, dequeue };
  }

  it('claims the head caller for the user’s agent; the others see it claimed; only that agent reads and hangs it up', async () => {
    const d = await desk();
    const caller = await d.arrive('+12025550121');
    const bob = await d.follow('bob');
    const [snapshot] = await bob.upTo(1);
    expect(snapshot?.data).toEqual({ callers: [{ callId: caller.id, queueId: d.queueId(), from: '+12025550121', to: '+12025550150', since: caller.createdAt }] });

    const { answer, invitation } = await d.dequeue(d.w, d.alice);
    expect(answer).toMatchObject({ status: 200, json: { call: { id: caller.id, state: 'dequeuing', agentId: d.w.session.agentId } } });
    expect((await invitation).request.getHeader('X-Call-Id')).toBe(caller.id);
    const [, claimed] = await bob.upTo(2);
    expect(claimed).toEqual({ event: 'call.claimed', data: { callId: caller.id, queueId: d.queueId() } });

    await (await invitation).accept();
    await expect.poll(async () => (await send(d.page, 'GET', `/voice/calls/${caller.id}`, { user: d.alice })).json).toMatchObject({ call: { state: 'established' } });
    // Her calls in progress, to reconcile a lost dequeue answer; bob has none.
    const own = await send(d.page, 'GET', '/voice/calls', { user: d.alice });
    expect((own.json['calls'] as Array<{ id: string }>).map((call) => call.id)).toEqual([caller.id]);
    expect(await send(d.page, 'GET', '/voice/calls', { user: 'bob' })).toMatchObject({ status: 200, json: { calls: [] } });

    // Bob's read and hangup of her call are answered as an unknown call's, and leave it running.
    const unknown = sameAnswer(await send(d.page, 'GET', '/voice/calls/c_unknown', { user: 'bob' }));
    expect(JSON.parse(unknown.text)).toEqual({ error: 'no such call', code: 'not_found' });
    for (const id of [caller.id, 'c_unknown', 'c_a%2Fhangup', '-c_a']) {
      expect(sameAnswer(await send(d.page, 'GET', `/voice/calls/${id}`, { user: 'bob' })), id).toEqual(unknown);
      expect(sameAnswer(await send(d.page, 'POST', `/voice/calls/${id}/hangup`, { user: 'bob', body: {} })), id).toEqual(unknown);
    }
    expect((await d.w.api.request<{ call: { state: string } }>('GET', `/calls/${caller.id}`)).body.call.state).toBe('established');

    const hungUp = await send(d.page, 'POST', `/voice/calls/${caller.id}/hangup`, { user: d.alice, body: {} });
    expect(hungUp.status).toBe(202);
    const [, , ended] = await bob.upTo(3);
    expect(ended).toEqual({ event: 'call.ended', data: { callId: caller.id, queueId: d.queueId(), state: 'finished' } });
    // Ended, it is still hers to read, and no longer one in progress.
    expect((await send(d.page, 'GET', `/voice/calls/${caller.id}`, { user: d.alice })).json).toMatchObject({ call: { state: 'finished' } });
    expect((await send(d.page, 'GET', '/voice/calls', { user: d.alice })).json).toEqual({ calls: [] });
  });

  it('answers a caller still waiting as not the user’s, and nobody waiting 409 queue_empty', async () => {
    const d = await desk();
    expect(await send(d.page, 'POST', `/voice/queues/${d.queueId()}/dequeue`, { user: d.alice, body: {} })).toMatchObject({ status: 409, json: { code: 'queue_empty' } });
    const caller = await d.arrive('+12025550121');
    expect(await send(d.page, 'GET', `/voice/calls/${caller.id}`, { user: d.alice })).toMatchObject({ status: 404, json: { code: 'not_found' } });
    expect(d.bus.published.map((update) => update.event)).toEqual(['call.received']);
  });

  it('tells the other agents the caller is back at the head when the agent does not answer', async () => {
    const d = await desk({ queueAnswerTimeoutMs: 300 });
    const caller = await d.arrive('+12025550121');
    const bob = await d.follow('bob');
    await bob.upTo(1);
    const { answer, invitation } = await d.dequeue(d.w, d.alice);
    expect(answer.status).toBe(200);
    await invitation;
    const [, claimed, requeued] = await bob.upTo(3);
    expect(claimed?.event).toBe('call.claimed');
    expect(requeued).toEqual({ event: 'call.requeued', data: { callId: caller.id, queueId: d.queueId(), from: '+12025550121', to: '+12025550150', since: caller.createdAt } });
    // Back at the head for the next dequeue.
    expect((await d.w.api.request<{ call: { state: string } }>('GET', `/calls/${caller.id}`)).body.call.state).toBe('queued');
  });
});
