/**
 * A queue's inbound call as the service answers it (spec 3.1's generic states; DESIGN.md, "Support desks"):
 * the simulator writes it, the proxy reads it, and the simulator's control client hands it to tests.
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
