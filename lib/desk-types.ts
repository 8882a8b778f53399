/** The support desk's words (DESIGN.md, "Support desks"): a queue's caller, an offer of one, the agent's availability. Types only. */

/** Whether the agent takes offered callers: `away` until they say `available`, and again after an offer they let ring out. */
export type Availability = 'available' | 'away';

/**
 * A queue's caller offered to this agent, ringing (the service's INVITE with `X-Call-Id`): `accept()` answers it,
 * `decline()` sends the caller on to the next agent. `queueId` is null until a read of the call said it;
 * `since` is when it began ringing (ms since the epoch, the page's clock).
 */
export interface Offer {
  callId: string;
  caller: string;
  queueId: string | null;
  since: number;
}

/**
 * An inbound call from a queue, as the service returns it (spec 3.1's generic states: `queued`, `dequeuing`,
 * `established`, `finished`, ...). The helper shows a claimed one as `status().call` in the browser call's
 * states (`dequeuing` as `waiting_agent`, `established` as `connected`, an end as `ended` or `failed`), with
 * `queueId` set, every field kept, and the service's own state in `serviceState` (`queued` after the end: the
 * agent did not answer in time and the caller is back in the queue).
 */
export interface QueueCall {
  id: string;
  state: string;
  queueId: string;
  from?: string;
  to?: string;
  /** The agent the last dequeue bridged it to. */
  agentId?: string | null;
  [field: string]: unknown;
}
