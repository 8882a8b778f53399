import { TERMINAL_GENERIC_STATES, type QueueCallRecord } from '../../contract/queue-call.js';
import type { WaitingCaller } from './queue-events.js';

/**
 * The service's generic calls (spec 3.1, 4.8) as the queue routes read them: an inbound caller of a queue, and
 * the agent a dequeue last bridged it to (`agentId`, docs/desk.md), which is how the proxy knows
 * a call is the user's.
 */

/** A generic call, the fields the proxy reads (the contract's `QueueCall`). */
export type QueueCall = Pick<QueueCallRecord, 'id' | 'queueId' | 'from' | 'to' | 'state' | 'agentId' | 'createdAt'>;

/** Whether `state` is one a call never leaves (spec 3.1). */
export const isTerminal = (state: string): boolean => TERMINAL_GENERIC_STATES.has(state);

/** The call in a record the service returned, or null when it is not one. */
export function queueCallOf(value: unknown): QueueCall | null {
  const call = value as Partial<Record<keyof QueueCall, unknown>> | null | undefined;
  const strings = [call?.id, call?.queueId, call?.from, call?.to, call?.state, call?.createdAt];
  if (!strings.every((field) => typeof field === 'string')) return null;
  const agentId = typeof call?.agentId === 'string' ? call.agentId : null;
  return { ...(call as QueueCall), agentId };
}

/** The calls of a `{calls}` answer that read as calls. */
export function queueCallsIn(body: unknown): QueueCall[] {
  const calls = (body as { calls?: unknown } | undefined)?.calls;
  return Array.isArray(calls) ? calls.map(queueCallOf).filter((call): call is QueueCall => call !== null) : [];
}

/** A waiting call as the agents' pages list it: waiting since it reached the queue. */
export const callerOf = (call: QueueCall): WaitingCaller => ({ callId: call.id, queueId: call.queueId, from: call.from, to: call.to, since: call.createdAt });

/** A generic call as the key's budget counts it (`createKeyBudget` reads a browser call's `busy`). */
export const budgetViewOf = (call: QueueCall) => ({ id: call.id, busy: !isTerminal(call.state) });

/** Any generic call (a queue's, or a monitor leg) as the key's budget counts it; null for anything else. */
export function genericBudgetView(value: unknown): { id: string; busy: boolean } | null {
  const call = value as { id?: unknown; state?: unknown } | null | undefined;
  return typeof call?.id === 'string' && typeof call.state === 'string' ? { id: call.id, busy: !isTerminal(call.state) } : null;
}
