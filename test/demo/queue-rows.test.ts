import { describe, expect, it } from 'vitest';
import { queueNamer, queueRows, waitSeconds } from '../../demo/models/queue-rows.js';
import type { QueueCaller } from '../../lib/index.js';

const now = Date.parse('2026-11-24T10:00:30Z');
const QUEUES = [
  { id: 'q_support', name: 'Support' },
  { id: 'q_sales', name: 'Sales' },
];
const caller = (callId: string, queueId: string, since: string): QueueCaller => ({ callId, queueId, from: `+1415555${callId.slice(-4)}`, to: '+18005550100', since });

describe('the queue panel rows', () => {
  it('counts the wait in whole seconds from when the caller began to wait, never below zero', () => {
    expect(waitSeconds('2026-11-24T10:00:23Z', now)).toBe(7);
    expect(waitSeconds('2026-11-24T10:00:22.900Z', now)).toBe(7);
    // The server's clock a moment ahead of the page's.
    expect(waitSeconds('2026-11-24T10:00:31Z', now)).toBe(0);
    expect(waitSeconds('not a time', now)).toBe(0);
  });

  it('lists every queue in its order, each with its own callers in the order watchQueues() gave them', () => {
    const rows = queueRows(QUEUES, [caller('c_0001', 'q_sales', '2026-11-24T10:00:00Z'), caller('c_0002', 'q_support', '2026-11-24T10:00:10Z'), caller('c_0003', 'q_sales', '2026-11-24T10:00:20Z')], now);
    expect(rows).toEqual([
      { id: 'q_support', name: 'Support', callers: [{ callId: 'c_0002', from: '+14155550002', waitSeconds: 20 }] },
      {
        id: 'q_sales',
        name: 'Sales',
        callers: [
          { callId: 'c_0001', from: '+14155550001', waitSeconds: 30 },
          { callId: 'c_0003', from: '+14155550003', waitSeconds: 10 },
        ],
      },
    ]);
  });

  it('shows an empty queue as a row with nobody in it, and nothing at all without queues or callers', () => {
    expect(queueRows(QUEUES, [], now).map((row) => row.callers)).toEqual([[], []]);
    expect(queueRows([], [], now)).toEqual([]);
  });

  it("keeps a caller whose queue the list lacks (the list failed to load), under the queue's id", () => {
    expect(queueRows([], [caller('c_0001', 'q_other', '2026-11-24T10:00:00Z')], now)).toEqual([{ id: 'q_other', name: 'q_other', callers: [{ callId: 'c_0001', from: '+14155550001', waitSeconds: 30 }] }]);
  });

  it('names a queue from the list, else by its id', () => {
    const nameOf = queueNamer(QUEUES);
    expect(nameOf('q_sales')).toBe('Sales');
    expect(nameOf('q_gone')).toBe('q_gone');
  });
});
