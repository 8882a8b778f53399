import { afterEach, describe, expect, it } from 'vitest';
import { serializeEvent, signBody } from '../../../contract/queue-webhook.js';
import { createMemoryQueueEvents, type QueueUpdate } from '../../../server-proxy/desk/queue-events.js';
import { createHarness, send, type Fetch, type Harness, type HarnessOptions } from '../support/harness.js';
import { createQueue, readStream, recordingBus, SECRET, serveOnLoopback, webhook, webhookRequest } from '../support/queue-support.js';

/**
 * The queue webhook's receiver and the agents' event stream (spec 6.1; docs/desk.md): a body is
 * verified over its exact bytes before anything is read, published once however often it is replayed, and
 * reaches the stream of each agent whose queues it concerns, after a snapshot that neither loses nor doubles
 * what came while it was read.
 */

let closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

/** A proxy with queues on the in-process simulator; alice and bob may see `allowed` (default `q_1`). */
function queueHarness(options: { allowed?: () => readonly string[]; wrap?: HarnessOptions['wrap']; heartbeatMs?: number } = {}) {
  const bus = recordingBus();
  const h = createHarness({
    rateLimit: false,
    ...(options.wrap ? { wrap: options.wrap } : {}),
    queues: { notifySecret: SECRET, queuesFor: options.allowed ?? (() => ['q_1']), events: bus, ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}) },
  });
  closers.push(() => h.close());
  return { h, bus };
}

/** Opens `user`'s event stream through the proxy's handler, closed after the test. */
async function follow(h: Harness, user: string) {
  const response = await h.proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': user } }));
  expect(response.status).toBe(200);
  const stream = readStream(response);
  closers.push(() => stream.cancel());
  return { response, stream };
}

const post = async (h: Harness, request: Request) => {
  const response = await h.proxy(request);
  return { status: response.status, text: await response.text() };
};

describe('the memory bus', () => {
  it('says a key is new once, until its time is up', async () => {
    let now = 0;
    const bus = createMemoryQueueEvents({ now: () => now });
    expect(await bus.firstSeen('call.received:c_1', 60)).toBe(true);
    expect(await bus.firstSeen('call.received:c_1', 60)).toBe(false);
    expect(await bus.firstSeen('call.ended:c_1', 60)).toBe(true);
    now = 59_999;
    expect(await bus.firstSeen('call.received:c_1', 60)).toBe(false);
    now = 60_000;
    expect(await bus.firstSeen('call.received:c_1', 60)).toBe(true);
  });

  it('lends a lease to one holder at a time, renewed by it alone, until given up or lapsed', async () => {
    let now = 0;
    const bus = createMemoryQueueEvents({ now: () => now });
    expect(await bus.lease('reads', 'a', 1000)).toBe(true);
    expect(await bus.lease('reads', 'b', 1000)).toBe(false);
    now = 900;
    expect(await bus.lease('reads', 'a', 1000)).toBe(true);
    now = 1800;
    expect(await bus.lease('reads', 'b', 1000)).toBe(false);
    await bus.releaseLease('reads', 'b');
    expect(await bus.lease('reads', 'b', 1000)).toBe(false);
    await bus.releaseLease('reads', 'a');
    expect(await bus.lease('reads', 'b', 1000)).toBe(true);
    now = 2800;
    expect(await bus.lease('reads', 'a', 1000)).toBe(true);
  });

  it('holds at most maxKeys, forgetting the oldest first', async () => {
    const bus = createMemoryQueueEvents({ maxKeys: 2 });
    for (const key of ['a', 'b', 'c']) expect(await bus.firstSeen(key, 60)).toBe(true);
    expect(await bus.firstSeen('c', 60)).toBe(false);
    expect(await bus.firstSeen('a', 60)).toBe(true);
  });

  it('brings each update to every subscriber in order, a failing listener stopping none, until unsubscribed or closed', async () => {
    const notes: string[] = [];
    const bus = createMemoryQueueEvents({ log: (line) => notes.push(line) });
    const heard: string[] = [];
    let ended = 0;
    await bus.subscribe(() => {
      throw new Error('a broken listener');
    });
    const stop = await bus.subscribe((update) => heard.push(`a ${update.callId}`));
    await bus.subscribe(
      (update) => heard.push(`b ${update.callId}`),
      () => (ended += 1),
    );
    const claimed = (callId: string): QueueUpdate => ({ event: 'call.claimed', callId, queueId: 'q_1' });
    await bus.publish(claimed('c_1'));
    stop();
    await bus.publish(claimed('c_2'));
    expect(heard).toEqual(['a c_1', 'b c_1', 'b c_2']);
    expect(notes).toEqual(['voice proxy: a queue event listener failed (a broken listener)', 'voice proxy: a queue event listener failed (a broken listener)']);
    await bus.close();
    expect(ended).toBe(1);
    await bus.publish(claimed('c_3'));
    expect(heard).toHaveLength(3);
    await expect(bus.subscribe(() => undefined)).rejects.toMatchObject({ status: 503, code: 'queue_events_unavailable' });
  });
});

describe('POST /voice/queue-events', () => {
  it('refuses a body without the signature, with a wrong one, or altered by one byte: 401, nothing read or published', async () => {
    const { h, bus } = queueHarness();
    const raw = serializeEvent(webhook());
    const refused = [
      webhookRequest(webhook(), { secret: null }),
      webhookRequest(webhook(), { secret: 'another-secret' }),
      webhookRequest(webhook(), { body: raw.replace('+12025550123', '+12025550124') }),
      webhookRequest(webhook(), { body: `${raw} ` }),
      webhookRequest(webhook(), { headers: { 'X-Service-Signature': signBody(raw, SECRET).toUpperCase().slice(1) } }),
      // Bytes that are not UTF-8, signed as they are: never what the service signed, never repaired.
      new Request('http://app.test/voice/queue-events', { method: 'POST', body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: { 'X-Service-Signature': signBody('{\ufffd}', SECRET) } }),
    ];
    for (const request of refused) {
      const answer = await post(h, request);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.text)).toMatchObject({ code: 'invalid_signature' });
    }
    // Unsigned nonsense is refused for its signature, not read as a bad event.
    expect((await post(h, new Request('http://app.test/voice/queue-events', { method: 'POST', body: 'not json' }))).status).toBe(401);
    expect(bus.published).toEqual([]);
    expect(h.seen).toEqual([]);
  });

  it('takes a signed event without a login: 204 at once, published once with the time it was received', async () => {
    const { h, bus } = queueHarness();
    const before = Date.now();
    const answer = await h.proxy(webhookRequest(webhook()));
    expect(answer.status).toBe(204);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(bus.published).toEqual([{ event: 'call.received', callId: 'c_1', queueId: 'q_1', from: '+12025550123', to: '+12025550150', since: expect.any(String) }]);
    const since = Date.parse((bus.published[0] as { since: string }).since);
    expect(since).toBeGreaterThanOrEqual(before);
    expect(since).toBeLessThanOrEqual(Date.now());
    // The webhook asked nothing of the service.
    expect(h.seen).toEqual([]);
  });

  it('drops a replayed callId plus event, while the same call’s other event is new', async () => {
    const { h, bus } = queueHarness();
    for (let i = 0; i < 3; i += 1) expect((await post(h, webhookRequest(webhook()))).status).toBe(204);
    expect((await post(h, webhookRequest(webhook({ event: 'call.ended', state: 'finished' })))).status).toBe(204);
    expect((await post(h, webhookRequest(webhook({ event: 'call.ended', state: 'finished' })))).status).toBe(204);
    expect(bus.published.map((update) => update.event)).toEqual(['call.received', 'call.ended']);
    expect(bus.published[1]).toEqual({ event: 'call.ended', callId: 'c_1', queueId: 'q_1', state: 'finished' });
  });

  it('answers 400 invalid_event for a signed body that is not an event, and publishes nothing', async () => {
    const { h, bus } = queueHarness();
    const signed = (body: string) => new Request('http://app.test/voice/queue-events', { method: 'POST', body, headers: { 'X-Service-Signature': signBody(body, SECRET) } });
    const bodies = ['not json', '[]', '{"event":"call.received"}', JSON.stringify({ ...webhook(), event: 'call.answered' }), JSON.stringify({ ...webhook(), callId: '../c_1' }), JSON.stringify({ ...webhook(), state: 7 })];
    for (const body of bodies) {
      const answer = await post(h, signed(body));
      expect(answer.status, body).toBe(400);
      expect(JSON.parse(answer.text), body).toMatchObject({ code: 'invalid_event' });
    }
    expect(bus.published).toEqual([]);
  });

  it("refuses a browser page's cross-site post and a body over 64 KB before the signature is read", async () => {
    const { h, bus } = queueHarness();
    const crossSite = await post(h, webhookRequest(webhook(), { headers: { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://evil.test' } }));
    expect(crossSite.status).toBe(403);
    expect(JSON.parse(crossSite.text)).toMatchObject({ code: 'cross_site_request' });
    const big = await post(h, webhookRequest(webhook(), { body: JSON.stringify({ ...webhook(), pad: 'x'.repeat(70_000) }) }));
    expect(big.status).toBe(413);
    expect(bus.published).toEqual([]);
  });

  it('is an unknown route without the queues option: 401 for nobody, 404 for a logged-in user', async () => {
    const h = createHarness({ rateLimit: false });
    closers.push(() => h.close());
    expect((await post(h, webhookRequest(webhook()))).status).toBe(401);
    for (const [method, path] of [
      ['POST', '/voice/queue-events'],
      ['GET', '/voice/queue-events'],
      ['GET', '/voice/queues'],
      ['POST', '/voice/queues/q_1/dequeue'],
      ['GET', '/voice/calls'],
    ] as const) {
      const answer = await send(h, method, path, { user: 'alice', ...(method === 'POST' ? { body: {} } : {}) });
      expect(answer.status, path).toBe(404);
      expect(answer.json, path).toEqual({ error: 'no such route', code: 'not_found' });
    }
    // The read and hangup of a call by id serve a supervisor's monitor leg too: routes with or without queues.
    expect((await send(h, 'GET', '/voice/calls/c_1', { user: 'alice' })).json).toEqual({ error: 'no such call', code: 'not_found' });
    expect((await send(h, 'POST', '/voice/calls/c_1/hangup', { user: 'alice', body: {} })).json).toEqual({ error: 'no such call', code: 'not_found' });
  });
});

describe('GET /voice/queue-events', () => {
  it('is for a logged-in user only', async () => {
    const { h } = queueHarness();
    expect((await send(h, 'GET', '/voice/queue-events')).status).toBe(401);
  });

  it('sends a snapshot of the callers waiting in the user’s queues, then their changes, and nothing of other queues', async () => {
    const { h } = queueHarness({ allowed: () => [support] });
    let support = '';
    const proxy = await serveOnLoopback(h.proxy);
    closers.push(() => proxy.close());
    support = await createQueue(h.simulator, 'Support', `${proxy.url}/voice/queue-events`);
    const sales = await createQueue(h.simulator, 'Sales', `${proxy.url}/voice/queue-events`);
    const waiting = h.service.queues.arrive({ queueId: support, from: '+12025550121', to: '+12025550150' });
    h.service.queues.arrive({ queueId: sales, from: '+12025550122', to: '+12025550150' });

    const { response, stream } = await follow(h, 'alice');
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-store, no-transform');
    const [snapshot] = await stream.upTo(1);
    expect(snapshot).toEqual({ event: 'snapshot', retry: 2000, data: { callers: [{ callId: waiting.id, queueId: support, from: '+12025550121', to: '+12025550150', since: waiting.createdAt }] } });

    // The simulator posts each arrival and end to the proxy's receiver; only the allowed queue's reach alice.
    h.service.queues.arrive({ queueId: sales, from: '+12025550124', to: '+12025550150' });
    const next = h.service.queues.arrive({ queueId: support, from: '+12025550123', to: '+12025550150' });
    const [, received] = await stream.upTo(2);
    expect(received).toEqual({ event: 'call.received', data: { callId: next.id, queueId: support, from: '+12025550123', to: '+12025550150', since: expect.any(String) } });
    h.service.queues.callerHangup(waiting.id);
    const [, , ended] = await stream.upTo(3);
    expect(ended).toEqual({ event: 'call.ended', data: { callId: waiting.id, queueId: support, state: 'finished' } });
    // Nothing else reached alice before a later arrival in her queue did.
    const later = h.service.queues.arrive({ queueId: support, from: '+12025550125', to: '+12025550150' });
    const [, , , last] = await stream.upTo(4);
    expect(last).toMatchObject({ event: 'call.received', data: { callId: later.id } });
    expect(stream.events).toHaveLength(4);
  });

  it('passes on claims and returns to the queue of the user’s queues only', async () => {
    const { h, bus } = queueHarness();
    const { stream } = await follow(h, 'alice');
    await stream.upTo(1);
    await bus.publish({ event: 'call.claimed', callId: 'c_9', queueId: 'q_other' });
    await bus.publish({ event: 'call.claimed', callId: 'c_1', queueId: 'q_1' });
    await bus.publish({ event: 'call.requeued', callId: 'c_1', queueId: 'q_1', from: '+12025550121', to: '+12025550150', since: '2026-01-01T00:00:00.000Z' });
    const events = await stream.upTo(3);
    expect(events.slice(1)).toEqual([
      { event: 'call.claimed', data: { callId: 'c_1', queueId: 'q_1' } },
      { event: 'call.requeued', data: { callId: 'c_1', queueId: 'q_1', from: '+12025550121', to: '+12025550150', since: '2026-01-01T00:00:00.000Z' } },
    ]);
  });

  it('applies what arrives during the snapshot’s read after it: nothing lost, nothing twice', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let reading = false;
    const wrap = (simulator: Fetch): Fetch => async (input, init) => {
      if (String(input).endsWith('/calls?status=active')) {
        reading = true;
        await held;
      }
      return simulator(input, init);
    };
    const { h } = queueHarness({ wrap, allowed: () => [queueId] });
    let queueId = '';
    // Webhooks of the simulator go nowhere: this test posts them itself, at the moment it chooses.
    queueId = await createQueue(h.simulator, 'Support');
    const listed = h.service.queues.arrive({ queueId, from: '+12025550121', to: '+12025550150' });

    const opened = h.proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': 'alice' } }));
    await expect.poll(() => reading).toBe(true);
    // While the read is out: the listed caller's own webhook, late, and a caller the read will not list.
    const announce = (callId: string, event: 'call.received' | 'call.ended' = 'call.received') =>
      h.proxy(webhookRequest(webhook({ event, callId, queueId, state: event === 'call.received' ? 'queued' : 'finished' })));
    expect((await announce(listed.id)).status).toBe(204);
    expect((await announce('c_unlisted')).status).toBe(204);
    release();
    const response = await opened;
    const stream = readStream(response);
    closers.push(() => stream.cancel());

    const [snapshot, late] = await stream.upTo(2);
    expect(snapshot?.data).toEqual({ callers: [expect.objectContaining({ callId: listed.id })] });
    expect(late).toEqual({ event: 'call.received', data: expect.objectContaining({ callId: 'c_unlisted', queueId }) });
    await announce(listed.id, 'call.ended');
    const [, , ended] = await stream.upTo(3);
    expect(ended).toEqual({ event: 'call.ended', data: { callId: listed.id, queueId, state: 'finished' } });
    // Nothing else came before a later announcement did.
    await announce('c_later');
    await stream.upTo(4);
    expect(stream.events.map((event) => `${event.event} ${(event.data as { callId?: string }).callId ?? ''}`)).toEqual(['snapshot ', `call.received c_unlisted`, `call.ended ${listed.id}`, 'call.received c_later']);
  });

  it('shows no caller whose end arrived before its announcement', async () => {
    const { h } = queueHarness();
    const { stream } = await follow(h, 'alice');
    await stream.upTo(1);
    await h.proxy(webhookRequest(webhook({ event: 'call.ended', callId: 'c_7', state: 'finished' })));
    await h.proxy(webhookRequest(webhook({ callId: 'c_7' })));
    await h.proxy(webhookRequest(webhook({ callId: 'c_8' })));
    const events = await stream.upTo(3);
    expect(events.slice(1).map((event) => [event.event, (event.data as { callId: string }).callId])).toEqual([
      ['call.ended', 'c_7'],
      ['call.received', 'c_8'],
    ]);
  });

  it('beats a heartbeat comment while idle', async () => {
    const { h } = queueHarness({ heartbeatMs: 20 });
    const { stream } = await follow(h, 'alice');
    await expect.poll(() => stream.comments.length).toBeGreaterThanOrEqual(2);
    expect(stream.comments[0]).toBe('heartbeat');
  });

  it('ends its subscription when the client goes away, in the handler and over a real socket', async () => {
    const { h, bus } = queueHarness();
    const first = readStream(await h.proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': 'alice' } })));
    await first.upTo(1);
    // The stream's, and that of the queues' re-reads, which run while a page watches (queue-reconcile.ts).
    expect(bus.open()).toBe(2);
    await first.cancel();
    await expect.poll(() => bus.open()).toBe(0);

    const proxy = await serveOnLoopback(h.proxy);
    closers.push(() => proxy.close());
    const abort = new AbortController();
    const response = await fetch(`${proxy.url}/voice/queue-events`, { headers: { 'x-test-user': 'alice' }, signal: abort.signal });
    const overSocket = readStream(response);
    await overSocket.upTo(1);
    expect(bus.open()).toBe(2);
    abort.abort();
    await overSocket.cancel().catch(() => undefined);
    await expect.poll(() => bus.open()).toBe(0);
  });

  it('ends the stream when the bus closes, so the page reconnects to a fresh snapshot', async () => {
    const { h, bus } = queueHarness();
    const { stream } = await follow(h, 'alice');
    await stream.upTo(1);
    await bus.close();
    await expect.poll(() => stream.ended()).toBe(true);
    // A new stream cannot follow a closed bus: a 503 with a code, as any route's error.
    const again = await send(h, 'GET', '/voice/queue-events', { user: 'alice' });
    expect(again).toMatchObject({ status: 503, json: { code: 'queue_events_unavailable' } });
  });

  it('answers the snapshot read’s failure as an error, and holds no subscription', async () => {
    const wrap = (simulator: Fetch): Fetch => async (input, init) => (String(input).endsWith('/calls?status=active') ? Response.json({ error: 'down', code: 'service_unavailable' }, { status: 503 }) : simulator(input, init));
    const { h, bus } = queueHarness({ wrap });
    const answer = await send(h, 'GET', '/voice/queue-events', { user: 'alice' });
    expect(answer).toMatchObject({ status: 503, json: { code: 'service_unavailable' } });
    expect(bus.open()).toBe(0);
  });
});
