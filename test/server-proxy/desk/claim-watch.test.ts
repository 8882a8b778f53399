import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../contract/http-error.js';
import { watchClaim } from '../../../server-proxy/desk/claim-watch.js';
import { noBudget } from '../../../server-proxy/budget/key-budget.js';
import type { QueueCall } from '../../../server-proxy/desk/queue-calls.js';
import type { Upstream } from '../../../server-proxy/upstream/upstream.js';
import { recordingBus } from '../support/queue-support.js';
import { FakeClock } from '../../../lib/testing/fake-clock.js';

/**
 * The watch over a claimed call reads it within the key's budget (claim-watch.ts): a read the budget refuses is
 * not made and the watch reads again at its next interval, and a watch whose time runs out on refused reads
 * says so once and ends. Against a scripted service and budget, on a fake clock the test moves: the watch's
 * timers run as the clock passes them, with no real waiting.
 */

const claimed: QueueCall = { id: 'c_1', queueId: 'q_1', from: '+12025550121', to: '+12025550150', state: 'dequeuing', agentId: 'ag_1', createdAt: '2026-01-01T00:00:00.000Z' };

/** A service whose reads of c_1 show `states` in turn, and a budget that refuses the first `refusals` reads. */
function scripted(states: string[], refusals: number) {
  const reads: string[] = [];
  const seen: unknown[] = [];
  let asked = 0;
  const upstream: Upstream = async (request) => {
    reads.push(request.path);
    const body = { call: { ...claimed, state: states[Math.min(reads.length - 1, states.length - 1)] } };
    return { status: 200, headers: {}, body, text: JSON.stringify(body) };
  };
  const budget = {
    ...noBudget(),
    admitRecoveryRead: async () => {
      asked += 1;
      if (asked <= refusals) throw new HttpError(429, 'rate_limited', 'kept for calls');
    },
    callSeen: (call: unknown) => void seen.push(call),
  };
  const bus = recordingBus();
  const lines: string[] = [];
  const clock = new FakeClock();
  const parts = { upstream, ensureOk: <T>(response: T) => response, budget, events: bus, log: (line: string) => void lines.push(line), clock };
  return { parts, reads, seen, asked: () => asked, bus, lines, clock };
}

describe('the claim watch and the key’s budget', () => {
  it('makes no read the budget refuses, reads again at its next interval, and tells the caller put back', async () => {
    const s = scripted(['dequeuing', 'queued'], 2);
    const watching = watchClaim(s.parts, claimed, { intervalMs: 1000, maxMs: 30_000 });
    await s.clock.advance(3999);
    expect(s.asked()).toBe(3);
    await s.clock.advance(1);
    await watching;
    expect(s.asked()).toBe(4);
    expect(s.clock.pendingTimers).toBe(0);
    expect(s.reads).toEqual(['/calls/c_1', '/calls/c_1']);
    expect(s.bus.published).toEqual([{ event: 'call.requeued', callId: 'c_1', queueId: 'q_1', from: '+12025550121', to: '+12025550150', since: claimed.createdAt }]);
    // Each read that showed the call kept its place in the budget, as a page’s read of its call does.
    expect(s.seen).toEqual([
      { id: 'c_1', busy: true },
      { id: 'c_1', busy: true },
    ]);
    expect(s.lines).toEqual([]);
  });

  it('ends when its time runs out on refused reads, with one line saying so and nothing published', async () => {
    const s = scripted(['queued'], Infinity);
    const watching = watchClaim(s.parts, claimed, { intervalMs: 1000, maxMs: 5000 });
    await s.clock.advance(5000);
    await watching;
    // One ask at each interval that fits in the watch's time, none after it.
    expect(s.asked()).toBe(5);
    expect(s.reads).toEqual([]);
    expect(s.bus.published).toEqual([]);
    expect(s.lines).toEqual([expect.stringContaining('a claimed call was watched no longer, its reads refused (kept for calls)')]);
  });

  it('ends quietly when its time runs out on a call still ringing', async () => {
    const s = scripted(['dequeuing'], 0);
    const watching = watchClaim(s.parts, claimed, { intervalMs: 1000, maxMs: 5000 });
    await s.clock.advance(5000);
    await watching;
    expect(s.reads.length).toBe(s.asked());
    expect(s.reads.length).toBe(5);
    expect(s.bus.published).toEqual([]);
    expect(s.lines).toEqual([]);
  });
});
