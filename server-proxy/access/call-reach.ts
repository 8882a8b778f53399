import { isBridged, isLiveMonitorLeg } from '../../contract/queue-call.js';
import type { QueueCall } from '../desk/queue-calls.js';

/**
 * Who a service's generic call belongs to (DESIGN.md, "Support desks" and "Supervisors and recordings"): the one
 * place the proxy decides it. The service scopes calls to the key, never to a user, so the proxy names the
 * user's calls from what a read shows: a queue's caller is the agent's once a dequeue bridged it to that agent
 * (its `agentId`, spec 4.8 `connectTo`), a monitor leg is the agent's it rings (spec 4.8 `to` of monitor), and a
 * supervisor reaches a queue's caller of a queue, or bridged to an agent, that they supervise.
 */

/** What a user of the proxy is to the calls: their own agent, and the queues and agents they supervise. */
export interface CallViewer {
  /** The service's id of the user's own agent. */
  agentId(): Promise<string>;
  /** The ids of the queues the user supervises. */
  queues: ReadonlySet<string>;
  /** The service's ids of the agents the user supervises. */
  agents(): Promise<{ has(agentId: string): boolean }>;
}

/** Which users reach a call: its agent only, its supervisors only, or either. */
export type Reach = 'own' | 'supervised' | 'either';

/** Whether the queue's caller is bridged to `agentId` by the last dequeue (any state: the agent may read its end). */
export const isAgentsQueueCall = (call: Pick<QueueCall, 'agentId'>, agentId: string): boolean => call.agentId !== null && call.agentId === agentId;

/** Whether a generic call record is a monitor leg that rings `agentId`. */
export const isAgentsMonitorLeg = (record: unknown, agentId: string): boolean => {
  const leg = record as { kind?: unknown; agentId?: unknown } | null | undefined;
  return leg?.kind === 'monitor' && leg.agentId === agentId;
};

/** Whether a supervisor of `queues` and `agents` reaches the queue's caller: one of their queues, or bridged to one of their agents. */
export const supervisesQueueCall = (call: Pick<QueueCall, 'queueId' | 'agentId'>, queues: ReadonlySet<string>, agents: { has(agentId: string): boolean }): boolean =>
  queues.has(call.queueId) || (call.agentId !== null && agents.has(call.agentId));

/**
 * Whether `viewer` reaches the queue's caller as `reach` asks. A caller no agent took is nobody's. The
 * supervised queues are asked first, since they need no read; the supervised agents last, since they need one
 * each.
 */
export async function reachesQueueCall(call: QueueCall, reach: Reach, viewer: CallViewer): Promise<boolean> {
  if (call.agentId === null) return false;
  const none = { has: () => false };
  if (reach !== 'own' && supervisesQueueCall(call, viewer.queues, none)) return true;
  if (reach !== 'supervised' && isAgentsQueueCall(call, await viewer.agentId())) return true;
  return reach !== 'own' && supervisesQueueCall(call, viewer.queues, await viewer.agents());
}

/** The calls in progress of `agentId` in a listing: the queue's callers bridged to it, then the monitor legs ringing it or up. */
export function agentsCallsInProgress(calls: readonly QueueCall[], records: readonly unknown[], agentId: string): unknown[] {
  const own = calls.filter((call) => isAgentsQueueCall(call, agentId) && isBridged(call.state));
  const legs = records.filter((record) => isAgentsMonitorLeg(record, agentId) && isLiveMonitorLeg((record as { state?: unknown }).state));
  return [...own, ...legs];
}
