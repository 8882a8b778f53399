/**
 * A queue's inbound call as the service answers it (spec 3.1's generic states; DESIGN.md, "Support desks"):
 * the simulator writes it, the proxy reads it, and the simulator's control client hands it to tests. With it,
 * the states in which it is bridged to an agent, and those of a supervisor's monitor leg while it runs: the
 * proxy, the page library and its fake backend all ask these lists.
 */

/** An inbound call that reached a queue (spec 3.1, 4.8, 6.1). */
export interface QueueCallRecord {
  /** `c_` and letters or digits. */
  id: string;
  direction: 'inbound';
  queueId: string;
  /** The caller, E.164. */
  from: string;
  /** The number dialled, E.164. */
  to: string;
  /** spec 3.1: `queued`, `dequeuing`, `established`, ... or a terminal state. */
  state: string;
  /**
   * The agent the last dequeue bridged the call to: set by the dequeue, kept when the call ends or goes back to
   * the queue unanswered, replaced by the next dequeue. Null while no agent claimed it.
   */
  agentId: string | null;
  createdAt: string;
  /** When the agent answered the last dequeue's INVITE (`established`). */
  answeredAt: string | null;
  endedAt: string | null;
}

/** spec 3.1: the states a call never leaves; `status=active` in a listing is every other one. */
export const TERMINAL_GENERIC_STATES: ReadonlySet<string> = new Set(['finished', 'failed', 'cancelled', 'no_answer', 'busy']);

/**
 * spec 3.1: the states of a queue's caller claimed by an agent, being bridged to it (`dequeuing`: the agent's
 * page rings) or bridged (`established`); the call's `agentId` names the agent.
 */
export const BRIDGED_QUEUE_STATES = ['dequeuing', 'established'] as const;

/** A state of {@link BRIDGED_QUEUE_STATES}. */
export type BridgedQueueState = (typeof BRIDGED_QUEUE_STATES)[number];

/** Whether a queue's caller in `state` is bridged, or being bridged, to the agent its `agentId` names. */
export const isBridged = (state: unknown): state is BridgedQueueState => (BRIDGED_QUEUE_STATES as readonly unknown[]).includes(state);

/**
 * spec 2.6 (leg kind `monitor`), 3.1: the states of a supervisor's monitor leg while it runs, ringing the
 * supervisor's agent (`ringing`) or up (`established`).
 */
export const LIVE_MONITOR_LEG_STATES = ['ringing', 'established'] as const;

/** Whether a monitor leg in `state` still runs (see {@link LIVE_MONITOR_LEG_STATES}). */
export const isLiveMonitorLeg = (state: unknown): boolean => (LIVE_MONITOR_LEG_STATES as readonly unknown[]).includes(state);
