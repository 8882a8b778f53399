import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { noBudget } from '../../../server-proxy/budget/key-budget.js';
import type { VoiceProxy } from '../../../server-proxy/setup/proxy.js';
import { createMemoryQueueEvents, type QueueEventBus } from '../../../server-proxy/desk/queue-events.js';
import { createQueueReconciler } from '../../../server-proxy/desk/queue-reconcile.js';
import type { Upstream } from '../../../server-proxy/upstream/upstream.js';
import { createSimulatorControl, type SimulatorControl } from '../../../simulator/http/control-client.js';
import { startSimulator, type RunningSimulator } from '../../../simulator/server.js';
import { API_KEY, type Fetch } from '../support/harness.js';
import { deskProxy, readsPass, readStream, recordingBus, redisReplica, SECRET, serveOnLoopback } from '../support/queue-support.js';
import { useRedis } from '../support/redis-server.js';
import { systemClock } from '../../../server-proxy/time/clock.js';

/**
 * The queue webhook is best effort (spec 6.1), so while a page watches the proxy re-reads the queues
 * (queue-reconcile.ts): against the simulator on its port, whose webhook faults lose or delay the webhooks, a
 * caller whose `call.received` was lost still shows on the stream, one whose `call.ended` was lost leaves it,
 * a webhook that comes late after the re-read showed the change sends nothing twice, and two replicas on one
 * redis-server do not both re-read. The re-reads run every 200 ms here (4 s by default); no timing is asserted.
 */

const INTERVAL_MS = 200;
const LINE = '+18005550100';

let simulator: RunningSimulator;
let control: SimulatorControl;
let closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  // A quota the fast re-reads never meet: the key's budget is not under test here.
  simulator = await startSimulator({ apiKey: API_KEY, port: 0, mediaAddresses: 'loopback', quota: { perMinute: 100_000, perHour: 1_000_000 } });
  control = createSimulatorControl(simulator.url);
});
afterAll(async () => simulator.close());
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
  await control.reset();
});

/** A proxy served on loopback with queues on `events`; counts its re-reads and the webhooks it received. */
async function startDesk(events: QueueEventBus, allowed: () => readonly string[]) {
  const reads: number[] = [];
  const webhooks: string[] = [];
  const fetch: Fetch = async (input, init) => {
    if (String(input).endsWith('/calls?status=active')) reads.push(Date.now());
    return globalThis.fetch(input, init);
  };
  const proxy = deskProxy({ baseUrl: simulator.baseUrl, apiKey: API_KEY, fetch }, { notifySecret: SECRET, queuesFor: allowed, events, reconcileIntervalMs: INTERVAL_MS }, () => undefined);
  const served = await serveOnLoopback(async (request) => {
    if (request.method === 'POST') webhooks.push(await request.clone().text());
    return proxy(request);
  });
  closers.push(() => served.close());
  return { proxy, reads, webhooks, notifyUrl: `${served.url}/voice/queue-events` };
}

async function createQueue(notifyUrl: string): Promise<string> {
  const response = await fetch(`${simulator.baseUrl}/v1/voice/queues`, {
    method: 'POST',
    headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Support', holdAudioUrl: 'https://example.test/hold.mp3', notifyUrl, notifySecret: SECRET }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { queue: { id: string } }).queue.id;
}

/** Opens `user`'s event stream; resolves once its snapshot came. */
async function follow(proxy: VoiceProxy, user: string) {
  const stream = readStream(await proxy(new Request('http://app.test/voice/queue-events', { headers: { 'x-test-user': user } })));
  closers.push(() => stream.cancel());
  await stream.upTo(1);
  return stream;
}

const told = (stream: ReturnType<typeof readStream>) => stream.events.slice(1).map((event) => `${event.event} ${(event.data as { callId: string }).callId}`);

/** One proxy with the memory bus, a queue whose webhooks go to it, and alice watching. */
async function oneDesk() {
  let queueId = '';
  const bus = recordingBus();
  const desk = await startDesk(bus, () => [queueId]);
  queueId = await createQueue(desk.notifyUrl);
  const stream = await follow(desk.proxy, 'alice');
  return { ...desk, bus, queueId, stream };
}

describe('the queues re-read while a page watches', () => {
  it('shows a caller whose call.received was lost, once, as the webhook would have', async () => {
    const { queueId, stream, bus, reads } = await oneDesk();
    await control.fault({ fault: 'drop-webhook', event: 'call.received' });
    const caller = await control.inbound({ queueId, from: '+12025550121', to: LINE });
    await expect.poll(() => told(stream), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`]);
    expect(stream.events[1]?.data).toEqual({ callId: caller.id, queueId, from: '+12025550121', to: LINE, since: caller.createdAt });
    await readsPass(() => reads.length, 5);
    expect(told(stream)).toEqual([`call.received ${caller.id}`]);
    expect(bus.published.map((update) => update.event)).toEqual(['call.received']);
  });

  it('drops a caller whose call.ended was lost', async () => {
    const { queueId, stream, reads } = await oneDesk();
    const caller = await control.inbound({ queueId, from: '+12025550122', to: LINE });
    await expect.poll(() => told(stream)).toContain(`call.received ${caller.id}`);
    await control.fault({ fault: 'drop-webhook', event: 'call.ended' });
    await control.callerHangup(caller.id);
    // A round that read the caller waiting before the hang-up corrects its `since` once, as `call.received`
    // again (queue-order.test.ts); how many rounds fit in before the hang-up depends on the machine's speed.
    const once = (lines: string[]) => lines.filter((line, at) => lines.indexOf(line) === at);
    await expect.poll(() => once(told(stream)), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`, `call.ended ${caller.id}`]);
    expect(stream.events.find((event) => event.event === 'call.ended')?.data).toEqual({ callId: caller.id, queueId, state: 'finished' });
    const received = stream.events.filter((event) => event.event === 'call.received');
    if (received.length > 1) expect(received[1]?.data).toMatchObject({ callId: caller.id, since: caller.createdAt });
    const settled = told(stream);
    expect(settled.length).toBeLessThanOrEqual(3);
    await readsPass(() => reads.length, 5);
    expect(told(stream)).toEqual(settled);
  });

  it('sends nothing twice when the webhooks come late, after the re-read showed the change', async () => {
    const { queueId, stream, bus, webhooks, reads } = await oneDesk();
    await control.fault({ fault: 'delay-webhook', event: '*', count: 2, delayMs: 10 * INTERVAL_MS });
    const caller = await control.inbound({ queueId, from: '+12025550123', to: LINE });
    await expect.poll(() => told(stream), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`]);
    await control.callerHangup(caller.id);
    await expect.poll(() => told(stream), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`, `call.ended ${caller.id}`]);
    // Both webhooks came, late, and were taken as the replays they now are.
    await expect.poll(() => webhooks.filter((body) => body.includes(caller.id)).length, { timeout: 10_000 }).toBe(2);
    await readsPass(() => reads.length, 3);
    expect(told(stream)).toEqual([`call.received ${caller.id}`, `call.ended ${caller.id}`]);
    expect(bus.published.map((update) => update.event)).toEqual(['call.received', 'call.ended']);
  });

  it('leaves what the webhooks told alone, and reads only while a page watches', async () => {
    const { queueId, stream, bus, reads, proxy } = await oneDesk();
    const caller = await control.inbound({ queueId, from: '+12025550124', to: LINE });
    await control.callerHangup(caller.id);
    // A round that read the caller waiting between its two webhooks corrects its `since` once (queue-order.test.ts).
    const once = (lines: string[]) => lines.filter((line, at) => lines.indexOf(line) === at);
    await expect.poll(() => once(told(stream))).toEqual([`call.received ${caller.id}`, `call.ended ${caller.id}`]);
    await readsPass(() => reads.length, 5);
    expect(told(stream).length).toBeLessThanOrEqual(3);
    expect(bus.published.filter((update) => update.event !== 'call.updated')).toHaveLength(2);

    // A second desk whose page still watches re-reads on the same interval and the same event loop: its rounds,
    // counted, are the time in which this desk's re-reads would have come, however slow the machine.
    const witness = await startDesk(recordingBus(), () => [queueId]);
    await follow(witness.proxy, 'carol');
    await stream.cancel();
    // A round begun before the page went may still read once; two of the witness's rounds see it done.
    await readsPass(() => witness.reads.length, 2);
    const after = reads.length;
    await readsPass(() => witness.reads.length, 5);
    expect(reads.length).toBe(after);
    // A page watching again starts them again.
    await follow(proxy, 'bob');
    await expect.poll(() => reads.length).toBeGreaterThan(after + 2);
  });
});

describe('two replicas on one redis-server', () => {
  const { redis, onStop } = useRedis();

  it('re-read one at a time, and the other carries on when the reader’s last page goes', async () => {
    let queueId = '';
    const buses = [(await redisReplica(redis().url, onStop)).events, (await redisReplica(redis().url, onStop)).events];
    const [a, b] = await Promise.all(buses.map((bus) => startDesk(bus, () => [queueId])));
    if (!a || !b) throw new Error('two replicas');
    queueId = await createQueue(a.notifyUrl);
    const onA = await follow(a.proxy, 'alice');
    const onB = await follow(b.proxy, 'bob');
    const from = Date.now();
    const since = (reads: number[]) => reads.filter((at) => at > from).length;

    // A lost webhook: whichever replica reads, both pages see the caller once.
    await control.fault({ fault: 'drop-webhook', event: 'call.received' });
    const caller = await control.inbound({ queueId, from: '+12025550125', to: LINE });
    await expect.poll(() => told(onA), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`]);
    await expect.poll(() => told(onB), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`]);
    await readsPass(() => since(a.reads) + since(b.reads), 6);
    // One replica made the re-reads, not both: one a round, not two.
    const [readsA, readsB] = [since(a.reads), since(b.reads)];
    expect(Math.min(readsA, readsB)).toBe(0);

    // The reader's page goes: it gives the lease up, and the other replica reads from then on.
    const [reader, other, otherStream] = readsA > 0 ? [a, b, onB] : [b, a, onA];
    await (reader === a ? onA : onB).cancel();
    // The other replica reads once the reader gave the lease up.
    await readsPass(() => other.reads.length, 1);
    const [readerBefore, otherBefore] = [reader.reads.length, other.reads.length];
    await control.fault({ fault: 'drop-webhook', event: 'call.ended' });
    await control.callerHangup(caller.id);
    await expect.poll(() => told(otherStream), { timeout: 10_000 }).toEqual([`call.received ${caller.id}`, `call.ended ${caller.id}`]);
    await readsPass(() => other.reads.length, 4);
    expect(reader.reads.length).toBe(readerBefore);
    expect(told(otherStream)).toHaveLength(2);
  });
});

describe('the key’s budget', () => {
  it('skips a round the budget refuses (its reads are kept for calls in progress), and reads again once it admits', async () => {
    let refuse = true;
    const budget = {
      ...noBudget(),
      admitRecoveryRead: async () => {
        if (refuse) throw new HttpError(429, 'rate_limited', 'kept for calls');
      },
    };
    const paths: string[] = [];
    const upstream: Upstream = async (request) => {
      paths.push(request.path);
      return { status: 200, headers: {}, body: { calls: [] }, text: '{"calls":[]}' };
    };
    const lines: string[] = [];
    const reconciler = createQueueReconciler({ upstream, ensureOk: (response) => response, budget, clock: systemClock, events: createMemoryQueueEvents(), log: (line) => lines.push(line), intervalMs: 50 });
    const stop = reconciler.watch();
    try {
      await expect.poll(() => lines).toEqual([expect.stringContaining('a re-read of the queues failed (kept for calls)')]);
      expect(paths).toEqual([]);
      refuse = false;
      await expect.poll(() => paths.length).toBeGreaterThan(1);
      expect(paths.every((path) => path === '/calls')).toBe(true);
    } finally {
      stop();
    }
  });
});

describe('what a re-read publishes, against a scripted service', () => {
  /** A reconciler over a memory bus and a service whose active calls and call reads the test sets. */
  function scripted() {
    const state = { active: [] as Array<Record<string, unknown>>, calls: new Map<string, Record<string, unknown> | null>(), hold: undefined as Promise<void> | undefined, reads: 0 };
    const bus = recordingBus();
    const call = (id: string, callState: string) => ({ id, queueId: 'q_1', from: '+12025550121', to: LINE, state: callState, agentId: null, createdAt: '2026-11-27T10:00:00.000Z' });
    const upstream: Upstream = async (request) => {
      if (request.path === '/calls') {
        state.reads += 1;
        const body = { calls: [...state.active] };
        await state.hold;
        return { status: 200, headers: {}, body, text: '' };
      }
      const found = state.calls.get(request.path.slice('/calls/'.length));
      if (!found) throw new HttpError(404, 'not_found', 'no such call');
      return { status: 200, headers: {}, body: { call: found }, text: '' };
    };
    const reconciler = createQueueReconciler({ upstream, ensureOk: (response) => response, budget: noBudget(), clock: systemClock, events: bus, log: () => undefined, intervalMs: 20 });
    const start = () => {
      const stop = reconciler.watch();
      closers.push(async () => stop());
    };
    return { state, bus, call, start };
  }
  const events = (bus: ReturnType<typeof recordingBus>) => bus.published.map((update) => `${update.event} ${update.callId}${'state' in update ? ` ${update.state}` : ''}`);

  it('tells a caller a dequeue took outside this proxy as claimed, and one the service no longer has as ended', async () => {
    const { state, bus, call, start } = scripted();
    state.active = [call('c_a', 'queued'), call('c_b', 'queued')];
    start();
    await expect.poll(() => events(bus)).toEqual(['call.received c_a', 'call.received c_b']);
    state.active = [call('c_a', 'dequeuing')];
    state.calls.set('c_b', null);
    await expect.poll(() => events(bus)).toEqual(['call.received c_a', 'call.received c_b', 'call.claimed c_a', 'call.ended c_b finished']);
    await readsPass(() => state.reads, 4);
    expect(bus.published).toHaveLength(4);
  });

  it('leaves a caller the bus told of while the read was out to the next round', async () => {
    const { state, bus, call, start } = scripted();
    // The first read lists c_new waiting (its webhook lost), and is still out when a dequeue's claim of it is
    // published: the read is older than the claim, so the caller is not announced after it.
    let release = () => {};
    state.hold = new Promise((resolve) => (release = resolve));
    state.active = [call('c_new', 'queued')];
    start();
    await expect.poll(() => state.reads).toBe(1);
    await bus.publish({ event: 'call.claimed', callId: 'c_new', queueId: 'q_1' });
    state.active = [call('c_new', 'dequeuing')];
    state.hold = undefined;
    release();
    // The next round began, so the held read was acted on; the one after it began, so that round was too.
    await readsPass(() => state.reads, 2);
    expect(events(bus)).toEqual(['call.claimed c_new']);
  });
});
