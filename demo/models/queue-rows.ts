import type { QueueCaller } from 'voice-browser';
import type { DemoQueue } from '../api.js';

/**
 * The queue panel's rows: each of the user's queues with its waiting callers, oldest first, and how long each
 * has waited at `now`. Pure: the model feeds it the queues the proxy lists, the callers `watchQueues()` reports
 * and the clock's tick.
 */

/** One waiting caller as the panel shows it. */
export interface WaitingCaller {
  callId: string;
  /** The caller's number, E.164. */
  from: string;
  /** Whole seconds since the caller began to wait. */
  waitSeconds: number;
}

/** One queue and who waits in it. */
export interface QueueRow {
  id: string;
  name: string;
  callers: WaitingCaller[];
}

/** Whole seconds from `since` (ISO 8601) to `now`; never negative (clocks a moment apart), 0 for a time unreadable. */
export function waitSeconds(since: string, now: number): number {
  const start = Date.parse(since);
  return Number.isFinite(start) ? Math.max(0, Math.floor((now - start) / 1000)) : 0;
}

/**
 * The rows: the listed queues in their order, then any queue a caller waits in that the list lacks (its id for a
 * name: the list may have failed to load while the stream works). Callers keep the order `watchQueues()` gives.
 */
export function queueRows(queues: readonly DemoQueue[], callers: readonly QueueCaller[], now: number): QueueRow[] {
  const rows = new Map<string, QueueRow>(queues.map((queue) => [queue.id, { id: queue.id, name: queue.name, callers: [] }]));
  for (const caller of callers) {
    let row = rows.get(caller.queueId);
    if (!row) rows.set(caller.queueId, (row = { id: caller.queueId, name: caller.queueId, callers: [] }));
    row.callers.push({ callId: caller.callId, from: caller.from, waitSeconds: waitSeconds(caller.since, now) });
  }
  return [...rows.values()];
}

/** A queue's name by its id, from the listed queues; the id itself for one not listed. */
export function queueNamer(queues: readonly DemoQueue[]): (queueId: string) => string {
  const names = new Map(queues.map((queue) => [queue.id, queue.name]));
  return (queueId) => names.get(queueId) ?? queueId;
}
