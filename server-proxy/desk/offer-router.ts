import type { BridgedQueueState } from '../../contract/queue-call.js';

/**
 * Offer routing, the decisions alone: which waiting caller of an offer-mode queue the proxy
 * dequeues, and to whose agent (`connectTo`). A pure `route(state, event) -> [state, decisions]`, as the
 * library's machines are; `createOfferRunner` feeds it the bus, the reads and the dequeues' answers, and runs what
 * it decides. Events carry their time (`at`), so the router never reads a clock.
 *
 * ```
 *  caller waiting ──(an offerable agent, longest idle first)──▶ offer pending ──dequeue 200──▶ offered
 *        ▲                                                           │ refused                    │
 *        └────────────────── back at the head (declined, or unanswered: the agent goes away) ◀────┤
 *                                                            answered ──▶ talking ──ended──▶ wrap-up ──▶ idle
 * ```
 *
 * @remarks
 * A dequeue takes the head caller, whoever it is (spec 4.8), so an offer is made to a queue and learns its call
 * from the dequeue's answer. At most one offer per agent, and no more offers pending on a queue than callers
 * known waiting in it: never two offers to one agent, never one caller to two. A caller an agent declined is not
 * offered to that agent again for `declineHoldMs`: the others are offered it first, and with nobody else it waits
 * at the head rather than ringing the page that just said no. The head is the oldest caller the router knows
 * waiting (callers back at the head after a ring are older than those who came later).
 */

/** An agent as the router sees it: from the availability store, with the queues `queuesFor` allows. */
export interface RouterAgent {
  agentId: string;
  /** `away` agents are never offered a caller. */
  availability: 'available' | 'away';
  /** Since when the agent has been idle (ms): the longest idle is offered first. */
  idleSince: number;
  queues: readonly string[];
}

/** An offer in flight: `callId` is null while its dequeue has not answered. */
export interface Offer {
  agentId: string;
  queueId: string;
  callId: string | null;
  at: number;
}

/** What the router knows; every map keyed by id. */
export interface RouterState {
  /** Offer-mode queues' waiting callers: queue id to call id to since when (ms). */
  waiting: ReadonlyMap<string, ReadonlyMap<string, number>>;
  agents: ReadonlyMap<string, RouterAgent>;
  /** Offers in flight, by agent id. */
  offers: ReadonlyMap<string, Offer>;
  /** Answered calls, call id to agent id: the agent is busy until the call ends. */
  talking: ReadonlyMap<string, string>;
  /** Agents not offered before a time (ms): wrap-up after a call, or a session found unable to ring. */
  heldUntil: ReadonlyMap<string, number>;
  /** Declines: call id to the agents who declined it, each until when (ms) the caller is not offered to them. */
  declined: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** A read of the service's calls in progress (`GET /calls?status=active`), as the router needs it. */
export interface CallsRead {
  queued: ReadonlyArray<{ callId: string; queueId: string; since: number }>;
  /** Calls bridged to an agent: `dequeuing` (ringing) or `established`. */
  bridged: ReadonlyArray<{ callId: string; queueId: string; agentId: string; state: BridgedQueueState }>;
}

/** What happens, as the router is told of it. */
export type RouterEvent =
  | { type: 'waiting'; callId: string; queueId: string; since: number; requeued: boolean; at: number }
  | { type: 'left'; callId: string; at: number }
  | { type: 'agent'; agent: RouterAgent; at: number }
  | { type: 'agent-gone'; agentId: string; at: number }
  | { type: 'offered'; agentId: string; queueId: string; callId: string; at: number }
  | { type: 'offer-failed'; agentId: string; reason: 'queue_empty' | 'agent_unavailable' | 'error'; at: number }
  | { type: 'read'; calls: CallsRead; at: number }
  | { type: 'tick'; at: number };

/** What the runner does: dequeue `queueId`'s head for `agentId`, set an agent away, or free an agent's lease. */
export type RouterDecision =
  | { type: 'offer'; queueId: string; agentId: string }
  | { type: 'away'; agentId: string }
  | { type: 'settled'; agentId: string };

/** The router's options. */
export interface RouterOptions {
  /** The queues in offer mode; every other queue is pulled (`answerNext`). */
  offerQueues: ReadonlySet<string>;
  /** Time after a call before its agent is offered again. */
  wrapUpMs: number;
  /** An offer back at the head this long after it was made went unanswered (not declined): its agent goes away. */
  unansweredMs: number;
  /** An offer nothing settled is forgotten after this long (a lost answer; the next read tells the truth). */
  offerTtlMs: number;
  /** An agent whose session could not ring is not tried again before this long. */
  retryAgentMs: number;
  /** A caller an agent declined is not offered to that agent again before this long. */
  declineHoldMs: number;
}

/** The state before anything is known. */
export const emptyRouterState = (): RouterState => ({ waiting: new Map(), agents: new Map(), offers: new Map(), talking: new Map(), heldUntil: new Map(), declined: new Map() });

/** A mutable copy, worked on by one transition. */
interface Draft {
  waiting: Map<string, Map<string, number>>;
  agents: Map<string, RouterAgent>;
  offers: Map<string, Offer>;
  talking: Map<string, string>;
  heldUntil: Map<string, number>;
  declined: Map<string, Map<string, number>>;
}

const draftOf = (s: RouterState): Draft => ({
  waiting: new Map([...s.waiting].map(([queue, calls]) => [queue, new Map(calls)])),
  agents: new Map(s.agents),
  offers: new Map(s.offers),
  talking: new Map(s.talking),
  heldUntil: new Map(s.heldUntil),
  declined: new Map([...s.declined].map(([callId, agents]) => [callId, new Map(agents)])),
});

/** Whether `agentId` may be offered a caller of `queueId` at `at`. */
export function isOfferable(s: RouterState, agentId: string, queueId: string, at: number): boolean {
  const agent = s.agents.get(agentId);
  if (!agent || agent.availability !== 'available' || !agent.queues.includes(queueId)) return false;
  if (s.offers.has(agentId) || [...s.talking.values()].includes(agentId)) return false;
  return (s.heldUntil.get(agentId) ?? 0) <= at;
}

/** Ends `agentId`'s offer; an offer back at the head after `unansweredMs` sets its agent away. */
function endOffer(d: Draft, o: RouterOptions, offer: Offer, at: number, requeued: boolean, out: RouterDecision[]): void {
  d.offers.delete(offer.agentId);
  out.push({ type: 'settled', agentId: offer.agentId });
  const agent = d.agents.get(offer.agentId);
  if (!agent || !requeued) return;
  if (at - offer.at >= o.unansweredMs) {
    d.agents.set(agent.agentId, { ...agent, availability: 'away' });
    out.push({ type: 'away', agentId: agent.agentId });
  } else {
    // Declined: the agent goes to the back of the idle line, so the caller goes on to the next one, and the
    // caller is not offered back to the agent who said no to it for a while, even when nobody else is free.
    d.agents.set(agent.agentId, { ...agent, idleSince: at });
    if (offer.callId !== null) d.declined.set(offer.callId, (d.declined.get(offer.callId) ?? new Map<string, number>()).set(agent.agentId, at + o.declineHoldMs));
  }
}

const offerOfCall = (d: Draft, callId: string): Offer | undefined => [...d.offers.values()].find((offer) => offer.callId === callId);

/** A call answered by its agent and over: the agent wraps up. */
function callOver(d: Draft, o: RouterOptions, callId: string, at: number): void {
  const agentId = d.talking.get(callId);
  if (agentId === undefined) return;
  d.talking.delete(callId);
  d.heldUntil.set(agentId, at + o.wrapUpMs);
  const agent = d.agents.get(agentId);
  if (agent) d.agents.set(agentId, { ...agent, idleSince: at + o.wrapUpMs });
}

/** The service's calls read at `at` replace what the router believed of the offer-mode queues. */
function applyRead(d: Draft, o: RouterOptions, calls: CallsRead, at: number, out: RouterDecision[]): void {
  d.waiting = new Map([...o.offerQueues].map((queue) => [queue, new Map()]));
  for (const call of calls.queued) d.waiting.get(call.queueId)?.set(call.callId, call.since);
  const bridged = new Map(calls.bridged.map((call) => [call.callId, call]));
  for (const offer of [...d.offers.values()]) {
    if (offer.callId === null) continue;
    const now = bridged.get(offer.callId);
    if (now?.state === 'dequeuing' && now.agentId === offer.agentId) continue;
    endOffer(d, o, offer, at, d.waiting.get(offer.queueId)?.has(offer.callId) ?? false, out);
    if (now?.state === 'established') d.talking.set(now.callId, now.agentId);
  }
  for (const [callId] of [...d.talking]) if (bridged.get(callId)?.state !== 'established') callOver(d, o, callId, at);
  for (const call of calls.bridged) {
    // Bridged by another replica, or before this one took over: the agent is taken all the same.
    if (call.state === 'established') d.talking.set(call.callId, call.agentId);
    else if (!d.offers.has(call.agentId)) d.offers.set(call.agentId, { agentId: call.agentId, queueId: call.queueId, callId: call.callId, at });
  }
}

/** Applies one event to the draft. */
function apply(d: Draft, o: RouterOptions, e: RouterEvent, out: RouterDecision[]): void {
  switch (e.type) {
    case 'waiting': {
      const offer = offerOfCall(d, e.callId);
      if (offer && !e.requeued) return;
      if (offer) endOffer(d, o, offer, e.at, true, out);
      if (o.offerQueues.has(e.queueId)) d.waiting.set(e.queueId, (d.waiting.get(e.queueId) ?? new Map<string, number>()).set(e.callId, e.since));
      return;
    }
    case 'left': {
      for (const calls of d.waiting.values()) calls.delete(e.callId);
      d.declined.delete(e.callId);
      const offer = offerOfCall(d, e.callId);
      if (offer) endOffer(d, o, offer, e.at, false, out);
      // Ended before a read showed it answered: it may have been, so its agent wraps up all the same.
      if (offer) d.talking.set(e.callId, offer.agentId);
      return callOver(d, o, e.callId, e.at);
    }
    case 'agent': {
      // The store's idle time, or later: a decline or a call's wrap-up moved the agent back meanwhile.
      const before = d.agents.get(e.agent.agentId)?.idleSince ?? e.agent.idleSince;
      return void d.agents.set(e.agent.agentId, { ...e.agent, idleSince: Math.max(before, e.agent.idleSince) });
    }
    case 'agent-gone':
      return void d.agents.delete(e.agentId);
    case 'offered': {
      // The service dequeued the caller, so it was back in the queue: an earlier offer of it is over, its news lost.
      const earlier = offerOfCall(d, e.callId);
      if (earlier && earlier.agentId !== e.agentId) endOffer(d, o, earlier, e.at, true, out);
      // Kept even when forgotten meanwhile: the agent rings all the same.
      d.offers.set(e.agentId, { agentId: e.agentId, queueId: e.queueId, at: d.offers.get(e.agentId)?.at ?? e.at, callId: e.callId });
      for (const calls of d.waiting.values()) calls.delete(e.callId);
      return;
    }
    case 'offer-failed': {
      const offer = d.offers.get(e.agentId);
      if (!offer || offer.callId !== null) return;
      d.offers.delete(e.agentId);
      out.push({ type: 'settled', agentId: e.agentId });
      // Nobody waits after all: the next read says who does. An agent who could not ring is let be a while.
      if (e.reason === 'queue_empty') d.waiting.get(offer.queueId)?.clear();
      else d.heldUntil.set(e.agentId, e.at + o.retryAgentMs);
      return;
    }
    case 'read':
      return applyRead(d, o, e.calls, e.at, out);
    case 'tick':
      for (const offer of [...d.offers.values()]) if (e.at - offer.at >= o.offerTtlMs) endOffer(d, o, offer, e.at, false, out);
  }
}

/** Forgets the declines whose hold has passed. */
function pruneDeclines(d: Draft, at: number): void {
  for (const [callId, agents] of [...d.declined]) {
    for (const [agentId, until] of [...agents]) if (until <= at) agents.delete(agentId);
    if (agents.size === 0) d.declined.delete(callId);
  }
}

/**
 * New offers: each offer-mode queue, oldest caller first, to its longest-idle offerable agent. A dequeue takes the
 * head, so the n-th offer pending on a queue reaches its n-th caller; an agent who declined that caller is passed
 * over for it.
 */
function offers(d: Draft, o: RouterOptions, at: number, out: RouterDecision[]): void {
  pruneDeclines(d, at);
  const oldest = (calls: ReadonlyMap<string, number>) => Math.min(...calls.values());
  const queues = [...d.waiting].filter(([queue, calls]) => o.offerQueues.has(queue) && calls.size > 0).sort((a, b) => oldest(a[1]) - oldest(b[1]));
  for (const [queueId, calls] of queues) {
    const line = [...calls].sort((a, b) => a[1] - b[1]).map(([callId]) => callId);
    let pending = [...d.offers.values()].filter((offer) => offer.queueId === queueId && offer.callId === null).length;
    const idle = [...d.agents.values()].filter((agent) => isOfferable(d, agent.agentId, queueId, at)).sort((a, b) => a.idleSince - b.idleSince);
    for (const agent of idle) {
      const caller = line[pending];
      if (caller === undefined) break;
      if (d.declined.get(caller)?.has(agent.agentId)) continue;
      pending += 1;
      d.offers.set(agent.agentId, { agentId: agent.agentId, queueId, callId: null, at });
      out.push({ type: 'offer', queueId, agentId: agent.agentId });
    }
  }
}

/** The router's one transition: the state after `event`, and what to do. */
export function route(state: RouterState, event: RouterEvent, options: RouterOptions): [RouterState, RouterDecision[]] {
  const draft = draftOf(state);
  const out: RouterDecision[] = [];
  apply(draft, options, event, out);
  offers(draft, options, event.at, out);
  return [draft, out];
}
