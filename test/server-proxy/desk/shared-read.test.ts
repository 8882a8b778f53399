import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryAvailability } from '../../../server-proxy/desk/availability.js';
import { noBudget } from '../../../server-proxy/budget/key-budget.js';
import { createOfferRunner } from '../../../server-proxy/desk/offer-runner.js';
import { queueCallsIn, type QueueCall } from '../../../server-proxy/desk/queue-calls.js';
import { createMemoryQueueEvents } from '../../../server-proxy/desk/queue-events.js';
import { createDesk, type OfferOptions } from '../../../server-proxy/routes/queue-routes.js';
import type { Upstream, UpstreamResponse } from '../../../server-proxy/upstream/upstream.js';
import { systemClock } from '../../../server-proxy/time/clock.js';

/**
 * The offer router and the panels' re-reads need the same read of the key's calls in progress: while both run
 * on one replica, the re-reads' read serves the router too, so the key pays one read an interval, not two; with
 * either one off, the other reads on its own. On fake timers, so the count of reads is exact.
 */

const INTERVAL_MS = 1000;

beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] }));
afterEach(() => void vi.useRealTimers());

const ok = (body: unknown): UpstreamResponse => ({ status: 200, headers: {}, body, text: JSON.stringify(body) });

/** A service with the calls in `active`, every agent's session able to ring, and a dequeue of a queue's head. */
function scriptedService() {
  const active: Array<QueueCall & { state: string }> = [];
  const paths: string[] = [];
  const dequeues: unknown[] = [];
  const upstream: Upstream = async (request) => {
    paths.push(request.path);
    if (request.path === '/calls') return ok({ calls: active.map((call) => ({ ...call })) });
    if (request.path === '/browser-sessions') return ok({ session: { status: 'active' }, call: null });
    if (request.path.endsWith('/dequeue')) {
      dequeues.push({ path: request.path, body: request.body });
      const head = active.find((call) => call.state === 'queued');
      if (!head) return { status: 409, headers: {}, body: { code: 'queue_empty' }, text: '' };
      Object.assign(head, { state: 'dequeuing', agentId: (request.body as { connectTo: string }).connectTo });
      return ok({ call: head });
    }
    return ok({ call: active.find((call) => request.path === `/calls/${call.id}`) });
  };
  const caller = (id: string): QueueCall => ({ id, queueId: 'q_1', from: '+12025550121', to: '+12025550150', state: 'queued', agentId: null, createdAt: '2026-01-01T00:00:00.000Z' });
  return { active, dequeues, upstream, caller, listReads: () => paths.filter((path) => path === '/calls').length };
}

/** Alice's agent, available for q_1. */
async function availableAgent() {
  const availability = createMemoryAvailability();
  await availability.set({ subject: 'alice', agentId: 'ag_1', availability: 'available', since: 0, queues: ['q_1'] });
  return availability;
}

/** A desk with the router and the re-reads, over the scripted service. */
async function scriptedDesk(service: ReturnType<typeof scriptedService>, intervals: { reconcileIntervalMs: number; checkIntervalMs: number }) {
  const offers: OfferOptions = { queues: ['q_1'], checkIntervalMs: intervals.checkIntervalMs };
  const options = { notifySecret: 'whsec_shared_read', queuesFor: () => ['q_1'], events: createMemoryQueueEvents(), availability: await availableAgent(), reconcileIntervalMs: intervals.reconcileIntervalMs, offers };
  return createDesk(options, { upstream: service.upstream, ensureOk: (response) => response, budget: noBudget(), log: () => undefined, clock: systemClock });
}

/** The reads of the calls in progress made over `n` intervals. */
async function readsOver(service: ReturnType<typeof scriptedService>, n: number): Promise<number> {
  const before = service.listReads();
  await vi.advanceTimersByTimeAsync(n * INTERVAL_MS);
  return service.listReads() - before;
}

describe('one read of the calls in progress for the router and the re-reads', () => {
  it('reads once an interval while both run, and the router reads for itself again once the last page goes', async () => {
    const service = scriptedService();
    const desk = await scriptedDesk(service, { reconcileIntervalMs: INTERVAL_MS, checkIntervalMs: INTERVAL_MS });
    const stopWatching = desk.reconciler.watch();
    // The router's first read is its own: a router starting afresh reads at once.
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    expect(await readsOver(service, 10)).toBe(10);
    // A caller whose webhook was lost is still offered.
    service.active.push(service.caller('c_1'));
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(service.dequeues).toEqual([{ path: '/queues/q_1/dequeue', body: { connectTo: 'ag_1' } }]);

    stopWatching();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(await readsOver(service, 10)).toBe(10);
    desk.offers?.stop();
  });

  it('re-reads once an interval with no offer mode, and routes on its own reads while no page watches', async () => {
    const service = scriptedService();
    const pull = createDesk(
      { notifySecret: 'whsec_shared_read', queuesFor: () => ['q_1'], events: createMemoryQueueEvents(), reconcileIntervalMs: INTERVAL_MS },
      { upstream: service.upstream, ensureOk: (response) => response, budget: noBudget(), log: () => undefined, clock: systemClock },
    );
    const stopWatching = pull.reconciler.watch();
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(await readsOver(service, 10)).toBe(10);
    stopWatching();

    const desk = await scriptedDesk(service, { reconcileIntervalMs: INTERVAL_MS, checkIntervalMs: INTERVAL_MS });
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(await readsOver(service, 10)).toBe(10);
    desk.offers?.stop();
  });

  it('leaves the router its own reads when the re-reads come less often than its checks', async () => {
    const service = scriptedService();
    const desk = await scriptedDesk(service, { reconcileIntervalMs: 2 * INTERVAL_MS, checkIntervalMs: INTERVAL_MS });
    const stopWatching = desk.reconciler.watch();
    await vi.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    expect(await readsOver(service, 10)).toBe(10 + 5);
    stopWatching();
    desk.offers?.stop();
  });
});

describe('the router on the re-reads’ reads', () => {
  it('routes on a read handed to it, makes none of its own while the re-reads run here, and reads again once they stop', async () => {
    const service = scriptedService();
    let reading = true;
    let handOn: (calls: readonly QueueCall[]) => void = () => undefined;
    const runner = createOfferRunner({
      upstream: service.upstream,
      ensureOk: (response) => response,
      budget: noBudget(),
      clock: systemClock,
      events: createMemoryQueueEvents(),
      availability: await availableAgent(),
      log: () => undefined,
      router: { offerQueues: new Set(['q_1']), wrapUpMs: 0, unansweredMs: 15 * INTERVAL_MS, offerTtlMs: 30 * INTERVAL_MS, retryAgentMs: INTERVAL_MS, declineHoldMs: 30 * INTERVAL_MS },
      intervalMs: INTERVAL_MS,
      claimReadIntervalMs: INTERVAL_MS,
      claimWatchMs: 30 * INTERVAL_MS,
      reads: {
        reading: () => reading,
        onRead: (listener) => {
          handOn = listener;
          return () => (handOn = () => undefined);
        },
      },
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(service.listReads()).toBe(1);
    await vi.advanceTimersByTimeAsync(5 * INTERVAL_MS);
    expect(service.listReads()).toBe(1);

    // Nothing but the handed read tells of this caller: no webhook, no bus.
    service.active.push(service.caller('c_1'));
    handOn(queueCallsIn({ calls: service.active }));
    await vi.advanceTimersByTimeAsync(0);
    expect(service.dequeues).toEqual([{ path: '/queues/q_1/dequeue', body: { connectTo: 'ag_1' } }]);

    reading = false;
    await vi.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(service.listReads()).toBe(2);
    runner.stop();
  });
});
