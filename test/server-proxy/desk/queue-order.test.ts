import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { watchQueueStream } from '../../../lib/platform/web/queue-watch.js';
import type { QueueCaller } from '../../../lib/core/helper-types.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';
import { HttpError } from '../../../contract/http-error.js';
import { noBudget } from '../../../server-proxy/budget/key-budget.js';
import { createMemoryQueueEvents, type QueueEventBus, type QueueUpdate } from '../../../server-proxy/desk/queue-events.js';
import { createQueueReconciler } from '../../../server-proxy/desk/queue-reconcile.js';
import { createWaitingView } from '../../../server-proxy/desk/queue-view.js';
import type { Upstream } from '../../../server-proxy/upstream/upstream.js';
import { createSimulatorControl, type SimulatorControl } from '../../../simulator/http/control-client.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { API_KEY, type Fetch } from '../support/harness.js';
import { deskProxy, readsPass, readStream, recordingBus, redisReplica, SECRET, serveOnLoopback, type StreamEvent } from '../support/queue-support.js';
import { useRedis } from '../support/redis-server.js';
import { systemClock } from '../../../server-proxy/time/clock.js';

/**
 * The queue webhook carries no creation time, so a caller it tells of waits since the proxy received it, and
 * webhooks that land out of order list callers out of order. The re-reads of the queues (queue-reconcile.ts) tell
 * each such caller again once with the call's `createdAt` (`call.updated`, sent on the stream as `call.received`),
 * and the page's list (`watchQueueStream`, fed here with what the stream sent) takes the service's order.
 */

const INTERVAL_MS = 100;
const LINE = '+18005550100';

let closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
  vi.unstubAllGlobals();
});

/** What a page lists after `events`, as `watchQueueStream` keeps it (an EventSource replaying them). */
function pageAfter(events: readonly StreamEvent[]): string[] {
  const listeners = new Map<string, (message: { data: string }) => void>();
  vi.stubGlobal(
    'EventSource',
    class {
      static readonly CLOSED = 2;
      addEventListener(name: string, listener: (message: { data: string }) => void) {
        listeners.set(name, listener);
      }
      close() {}
    },
  );
  let listed: readonly QueueCaller[] = [];
  const stop = watchQueueStream('/voice/queue-events', (callers) => (listed = callers), new FakeClock());
  for (const { event, data } of events) listeners.get(event)?.({ data: JSON.stringify(data) });
  stop();
  return listed.map((caller) => `${caller.callId} ${caller.since}`);
}

const corrections = (updates: readonly QueueUpdate[]) => updates.filter((update) => update.event === 'call.updated').map((update) => update.callId);

describe('callers whose webhooks land out of order', () => {
  let simulator: RunningSimulator;
  let control: SimulatorControl;
  beforeAll(async () => {
    simulator = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback', quota: { perMinute: 100_000, perHour: 1_000_000 } });
    control = createSimulatorControl(simulator.url);
  });
  afterAll(async () => simulator.close());

  it('are listed as the service orders them after a re-read, each corrected once', async () => {
    // The re-reads see no caller waiting until both webhooks came, so neither is told by a re-read first.
    let hidden = true;
    let reads = 0;
    const fetch: Fetch = async (input, init) => {
      const response = await globalThis.fetch(input, init);
      if (!String(input).endsWith('/calls?status=active')) return response;
      reads += 1;
      if (!hidden) return response;
      const headers = new Headers(response.headers);
      headers.delete('content-encoding');
      headers.delete('content-length');
      return new Response(JSON.stringify({ calls: [] }), { status: response.status, headers });
    };
    let queueId = '';
    const bus = recordingBus();
    const proxy = deskProxy({ baseUrl: simulator.baseUrl, apiKey: API_KEY, fetch }, { notifySecret: SECRET, queuesFor: () => [queueId], events: bus, reconcileIntervalMs: INTERVAL_MS }, () => undefined);
    // The first caller's webhook is late: held on its way to the proxy until the second caller's was answered
    // (however long a loaded machine takes to make the second caller), so the second's reaches the proxy first.
    let secondAnswered = () => {};
    const firstMayGo = new Promise<void>((resolve) => (secondAnswered = resolve));
    let webhooks = 0;
    const served = await serveOnLoopback(async (request) => {
      if (request.method !== 'POST') return proxy(request);
      const arrived = new Request(request.url, { method: 'POST', headers: request.headers, body: await request.text() });
      webhooks += 1;
      if (webhooks === 1) return firstMayGo.then(() => proxy(arrived));
      const answer = await proxy(arrived);
      secondAnswered();
      return answer;
    });
    closers.push(() => served.close());
    const created = await globalThis.fetch(`${simulator.baseUrl}/v1/voice/queues`, {
      method: 'POST',
      headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl: `${served.url}/voice/queue-events`, notifySecret: SECRET }),
    });
    queueId = ((await created.json()) as { queue: { id: string } }).queue.id;
    const stream = readStream(await proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': 'alice' } })));
    closers.push(() => stream.cancel());
    await stream.upTo(1);

    const first = await control.inbound({ queueId, from: '+12025550131', to: LINE });
    // The second caller reaches the queue later by the service's clock too.
    await expect.poll(() => Date.now()).toBeGreaterThan(Date.parse(first.createdAt));
    const second = await control.inbound({ queueId, from: '+12025550132', to: LINE });
    const told = () => stream.events.slice(1).map((event) => `${event.event} ${(event.data as { callId: string }).callId}`);
    await expect.poll(told, { timeout: 10_000 }).toEqual([`call.received ${second.id}`, `call.received ${first.id}`]);
    expect(pageAfter(stream.events).map((line) => line.split(' ')[0])).toEqual([second.id, first.id]);

    hidden = false;
    const truth = [`${first.id} ${first.createdAt}`, `${second.id} ${second.createdAt}`];
    await expect.poll(() => pageAfter(stream.events), { timeout: 10_000 }).toEqual(truth);
    await readsPass(() => reads, 4);
    expect(pageAfter(stream.events)).toEqual(truth);
    // Once each, however many rounds read them since: on the bus, and on the stream as `call.received` again.
    expect(corrections(bus.published).sort()).toEqual([first.id, second.id].sort());
    expect(told().filter((line) => line.endsWith(first.id))).toEqual([`call.received ${first.id}`, `call.received ${first.id}`]);
    expect(told().filter((line) => line.endsWith(second.id))).toEqual([`call.received ${second.id}`, `call.received ${second.id}`]);
  });
});

/** A service whose active calls the test sets; a call read alone answers as it is listed, or 404. */
function scriptedService() {
  const state = { active: [] as Array<Record<string, unknown>> };
  const call = (id: string, createdAt: string) => ({ id, queueId: 'q_1', from: '+12025550121', to: LINE, state: 'queued', agentId: null, createdAt });
  const upstream: Upstream = async (request) => {
    if (request.path === '/calls') return { status: 200, headers: {}, body: { calls: [...state.active] }, text: '' };
    const found = state.active.find((listed) => `/calls/${String(listed.id)}` === request.path);
    if (!found) throw new HttpError(404, 'not_found', 'no such call');
    return { status: 200, headers: {}, body: { call: found }, text: '' };
  };
  return { state, call, upstream };
}

/**
 * A replica's re-reads on `bus`, made to read every round (no lease between them), so only the dedupe keeps them
 * apart. Returns its own count of reads of the calls in progress: what one replica did is told apart from the other's.
 */
function replica(bus: QueueEventBus, upstream: Upstream): () => number {
  let reads = 0;
  const counted: Upstream = (request) => {
    if (request.path === '/calls') reads += 1;
    return upstream(request);
  };
  const everyRound: QueueEventBus = { ...bus, lease: async () => true };
  const reconciler = createQueueReconciler({ upstream: counted, ensureOk: (response) => response, budget: noBudget(), clock: systemClock, events: everyRound, log: () => undefined, intervalMs: INTERVAL_MS });
  const stop = reconciler.watch();
  closers.push(async () => stop());
  return () => reads;
}

/** Waits until each replica made `more` re-reads: every one of them read, not one of them twice as often. */
async function eachReads(replicas: ReadonlyArray<() => number>, more: number): Promise<void> {
  await Promise.all(replicas.map((reads) => readsPass(reads, more)));
}

/** Publishes a `call.received` as the webhook receiver does: once, waiting since `receivedAt`. */
async function webhookCame(bus: QueueEventBus, callId: string, receivedAt: string): Promise<void> {
  if (await bus.firstSeen(`call.received:${callId}`, 60)) await bus.publish({ event: 'call.received', callId, queueId: 'q_1', from: '+12025550121', to: LINE, since: receivedAt });
}

/** Everything `bus` carries from now on, as one subscriber hears it. */
async function heard(bus: QueueEventBus): Promise<QueueUpdate[]> {
  const updates: QueueUpdate[] = [];
  const unsubscribe = await bus.subscribe((update) => updates.push(update));
  closers.push(async () => unsubscribe());
  return updates;
}

describe('the correction, across rounds and replicas', () => {
  const A = { id: 'c_a', createdAt: '2026-11-27T10:00:00.000Z' };
  const B = { id: 'c_b', createdAt: '2026-11-27T10:00:01.000Z' };

  it('is published once per caller by two replicas reading every round, with the read’s since', async () => {
    const bus = createMemoryQueueEvents();
    const updates = await heard(bus);
    const { state, call, upstream } = scriptedService();
    const replicas = [replica(bus, upstream), replica(bus, upstream)];
    // Each replica has read the queues empty twice.
    await eachReads(replicas, 2);
    await webhookCame(bus, B.id, '2026-11-27T10:00:05.000Z');
    await webhookCame(bus, A.id, '2026-11-27T10:00:06.000Z');
    state.active = [call(A.id, A.createdAt), call(B.id, B.createdAt)];
    await expect.poll(() => corrections(updates).sort()).toEqual([A.id, B.id]);
    // Each replica read both callers waiting since, more than once: neither corrected either again.
    await eachReads(replicas, 3);
    expect(updates.filter((update) => update.event === 'call.updated')).toEqual([
      expect.objectContaining({ callId: A.id, since: A.createdAt }),
      expect.objectContaining({ callId: B.id, since: B.createdAt }),
    ]);
    expect(updates).toHaveLength(4);
  });

  it('corrects a caller told before the re-reads began, once, and leaves one a re-read told alone', async () => {
    const bus = createMemoryQueueEvents();
    const updates = await heard(bus);
    const { state, call, upstream } = scriptedService();
    await webhookCame(bus, A.id, '2026-11-27T10:00:06.000Z');
    state.active = [call(A.id, A.createdAt)];
    const reads = replica(bus, upstream);
    await expect.poll(() => corrections(updates)).toEqual([A.id]);
    // B's webhook is lost: the re-read tells it with its createdAt, so there is nothing to correct.
    state.active = [call(A.id, A.createdAt), call(B.id, B.createdAt)];
    await expect.poll(() => updates.map((update) => `${update.event} ${update.callId}`)).toEqual([`call.received ${A.id}`, `call.updated ${A.id}`, `call.received ${B.id}`]);
    await readsPass(reads, 4);
    expect(updates).toHaveLength(3);
  });

  describe('on one redis-server', () => {
    const { redis, onStop } = useRedis();

    it('is published once per caller, whichever replica reads first', async () => {
      const [a, b] = [(await redisReplica(redis().url, onStop)).events, (await redisReplica(redis().url, onStop)).events];
      if (!a || !b) throw new Error('two replicas');
      const [onA, onB] = [await heard(a), await heard(b)];
      const { state, call, upstream } = scriptedService();
      const replicas = [replica(a, upstream), replica(b, upstream)];
      await eachReads(replicas, 2);
      await webhookCame(a, B.id, '2026-11-27T10:00:05.000Z');
      await webhookCame(b, A.id, '2026-11-27T10:00:06.000Z');
      state.active = [call(A.id, A.createdAt), call(B.id, B.createdAt)];
      await expect.poll(() => corrections(onB).sort()).toEqual([A.id, B.id]);
      await eachReads(replicas, 3);
      expect(corrections(onA).sort()).toEqual([A.id, B.id]);
      expect(corrections(onB).sort()).toEqual([A.id, B.id]);
    });
  });
});

describe('a stream’s view of a correction', () => {
  it('passes it only for a caller the stream shows', () => {
    const view = createWaitingView(new Set(['q_1']));
    const caller = { callId: 'c_a', queueId: 'q_1', from: '+12025550121', to: LINE };
    view.start([{ ...caller, since: '2026-11-27T10:00:06.000Z' }]);
    const update: QueueUpdate = { event: 'call.updated', ...caller, since: '2026-11-27T10:00:00.000Z' };
    expect(view.next(update)).toEqual(update);
    view.next({ event: 'call.claimed', callId: 'c_a', queueId: 'q_1' });
    expect(view.next(update)).toBeNull();
    expect(view.next({ ...update, callId: 'c_other' })).toBeNull();
  });
});
