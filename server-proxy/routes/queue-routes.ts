import { emptyInput, parseInput, readJsonBody } from '../../contract/voice-input.js';
import { createMemoryAvailability, type AvailabilityStore } from '../desk/availability.js';
import { CLAIM_READ_INTERVAL_MS, CLAIM_WATCH_MS, watchClaim } from '../desk/claim-watch.js';
import { agentsCallsInProgress } from '../access/call-reach.js';
import { isResourceId, notFound } from '../access/ownership.js';
import { budgetViewOf, genericBudgetView, queueCallOf, queueCallsIn } from '../desk/queue-calls.js';
import { createOfferRunner, type OfferRunner } from '../desk/offer-runner.js';
import { createMemoryQueueEvents, type QueueEventBus } from '../desk/queue-events.js';
import { createQueueReconciler, RECONCILE_INTERVAL_MS, type QueueReconciler, type ReconcileParts } from '../desk/queue-reconcile.js';
import { followQueues } from '../desk/queue-stream.js';
import type { ProxyContext, RouteParts } from './route-parts.js';
import type { ProxyUser } from '../access/subject.js';

/**
 * Support desks (spec 6.1; docs/desk.md): the service's queue webhook received, the
 * agents' event stream of waiting callers, the dequeue that claims the head caller for the user's own agent,
 * and the reads and hangup of a call bridged to that agent: one named handler each, `ROUTES` gives each its
 * route. Every route but the webhook's (`receiveWebhook`) is the logged-in user's, and only for the
 * queues `queuesFor(user)` allows.
 */

/** The `queues` option of `createVoiceProxy`: turns the queue routes on. */
export interface QueueOptions {
  /** The notifySecret the integrator gave its queues; the receiver refuses any body not signed with it. */
  notifySecret: string;
  /** The queue ids this user may see and take. */
  queuesFor(user: ProxyUser): readonly string[] | Promise<readonly string[]>;
  /** Shares dedupe and events between replicas; default in this process's memory. */
  events?: QueueEventBus;
  /** Time between the heartbeat comments of an open event stream, in ms; default 15 s. */
  heartbeatMs?: number;
  /** Time between the reads that watch a claimed call while it is `dequeuing`, in ms; default 1 s. */
  claimReadIntervalMs?: number;
  /**
   * Time between the re-reads of the queues while a page watches, in ms (one replica at a time reads); default
   * 4 s (`createQueueReconciler` says why).
   */
  reconcileIntervalMs?: number;
  /** Where each user's availability is kept (`PUT /availability`); default in this process's memory. */
  availability?: AvailabilityStore;
  /** Queues whose callers the proxy offers to agents (offer mode); default none: every queue is pulled. */
  offers?: OfferOptions;
}

/** The `offers` option: offer mode (docs/desk.md, "Offer mode"). */
export interface OfferOptions {
  /** The queues in offer mode; every other queue stays in pull mode (`answerNext`). */
  queues: readonly string[];
  /** Time after a call before its agent is offered again, in ms; default 0. */
  wrapUpMs?: number;
  /**
   * Time between the router's checks (the store, and a read of the calls while an agent is available), in ms;
   * default 4 s (docs/desk.md, "Offer mode", gives the arithmetic).
   */
  checkIntervalMs?: number;
  /** An offer back at the head this long after it was made went unanswered, and its agent is set away; default 15 s. */
  unansweredMs?: number;
  /**
   * A caller an agent declined is not offered to that agent again for this long, in ms; default 30 s. Other agents
   * are offered it meanwhile; with none, it waits at the head of its queue.
   */
  declineHoldMs?: number;
}

/** The support desk of one proxy: the options with their defaults, the bus made once. */
export interface Desk {
  notifySecret: string;
  queuesFor: QueueOptions['queuesFor'];
  events: QueueEventBus;
  heartbeatMs: number;
  claimReadIntervalMs: number;
  reconciler: QueueReconciler;
  availability: AvailabilityStore;
  /** The routing of offer-mode queues; none without `offers`. */
  offers: OfferRunner | undefined;
}

/** What the queue handlers work through: one request's parts and the desk. */
export type Queues = RouteParts & Desk;

type QueueContext = ProxyContext;

/** An answer the proxy writes itself, as relayed ones are: JSON, no-store, the integrator's headers. */
const answer = (q: Queues, body: unknown): Response =>
  new Response(JSON.stringify(body), { headers: { ...q.headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });

const allowedQueues = async (q: Queues, c: QueueContext): Promise<ReadonlySet<string>> => new Set(await q.queuesFor(c.get('user')));

const agentOf = (q: RouteParts, c: QueueContext): Promise<string> => q.agents.ensure(c.get('user'), c.get('subject'));

const callIn = (body: unknown) => queueCallOf((body as { call?: unknown } | undefined)?.call);

/** A call an answer names (a queue's, or a monitor leg) holds a place in the key's budget while it runs, as a browser call does. */
const seen = (q: RouteParts, body: unknown): void => {
  const view = genericBudgetView((body as { call?: unknown } | undefined)?.call);
  if (view) q.budget.callSeen(view);
};

/** `GET /queue-events`: the agent's event stream (`followQueues`). */
export async function follow(q: Queues, c: QueueContext): Promise<Response> {
  // A page back after the bus dropped its stream: the offers resume with it.
  q.offers?.nudge();
  return followQueues(q, c, await allowedQueues(q, c));
}

/** `GET /queues`: the user's queues, `{queues: [{id, name}]}`, for the page to name them. */
export async function listQueues(q: Queues, c: QueueContext): Promise<Response> {
  const allowed = await allowedQueues(q, c);
  await q.budget.admitRecoveryRead();
  const listed = q.ensureOk(await q.upstream({ method: 'GET', path: '/queues' })).body as { queues?: Array<{ id?: unknown; name?: unknown }> } | undefined;
  const queues = (listed?.queues ?? []).filter((queue) => typeof queue.id === 'string' && allowed.has(queue.id)).map(({ id, name }) => ({ id, name }));
  return answer(q, { queues });
}

/** `POST /queues/:id/dequeue`: the head caller of an allowed queue, bridged to the user's agent. */
export async function dequeue(q: Queues, c: QueueContext, queueId: string): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  // A queue not allowed is answered as one that does not exist.
  if (!isResourceId(queueId) || !(await allowedQueues(q, c)).has(queueId)) throw notFound('queue');
  const agentId = await agentOf(q, c);
  // spec 7: a lost answer is a 5xx with its own code; the page reconciles through `GET /calls`.
  const response = await q.upstream({ method: 'POST', path: `/queues/${queueId}/dequeue`, body: { connectTo: agentId }, lostCode: 'dequeue_outcome_unknown' });
  const call = response.status === 200 ? callIn(response.body) : null;
  if (call) {
    q.budget.callSeen(budgetViewOf(call));
    // The other agents drop the caller; a failure to tell them does not undo the claim.
    await q.events.publish({ event: 'call.claimed', callId: call.id, queueId: call.queueId }).catch((error: unknown) => q.log(`voice proxy: a claim could not be published (${error instanceof Error ? error.message : String(error)})`));
    void watchClaim({ ...q, upstream: q.background }, call, { intervalMs: q.claimReadIntervalMs, maxMs: CLAIM_WATCH_MS });
  }
  return q.relay(response);
}

/**
 * `GET /calls`: the user's calls in progress, `{calls}`, to reconcile a dequeue or a monitor whose answer was
 * lost: the callers bridged to the user's agent, and the monitor leg ringing it or up.
 */
export async function listOwnCalls(q: Queues, c: QueueContext): Promise<Response> {
  const agentId = await agentOf(q, c);
  await q.budget.admitRecoveryRead();
  const response = q.ensureOk(await q.upstream({ method: 'GET', path: '/calls', query: { status: 'active' } }));
  const calls = (response.body as { calls?: unknown } | undefined)?.calls;
  return answer(q, { calls: agentsCallsInProgress(queueCallsIn(response.body), Array.isArray(calls) ? calls : [], agentId) });
}

/** `GET /calls/:id`: a call bridged to the user's agent, or a monitor leg ringing it; served without `queues` too. */
export async function readQueueCall(q: RouteParts, c: QueueContext, id: string): Promise<Response> {
  const response = await q.ownQueueCall(await agentOf(q, c), id);
  seen(q, response.body);
  return q.relay(response);
}

/** `POST /calls/:id/hangup`: hangs up a call bridged to the user's agent, or a monitor leg ringing it. */
export async function hangUpQueueCall(q: RouteParts, c: QueueContext, id: string): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  await q.ownQueueCall(await agentOf(q, c), id);
  const response = await q.upstream({ method: 'POST', path: `/calls/${id}/hangup`, body: {}, lostCode: 'cleanup_unknown' });
  seen(q, response.body);
  return q.relay(response);
}

/** The router's options and pace, from the `offers` option. */
function offerPacing(offers: OfferOptions, claimReadIntervalMs: number) {
  const intervalMs = offers.checkIntervalMs ?? 4000;
  return {
    intervalMs,
    router: {
      offerQueues: new Set(offers.queues),
      wrapUpMs: offers.wrapUpMs ?? 0,
      unansweredMs: offers.unansweredMs ?? 15_000,
      // The claim watch settles an offer by then; past it, the next read tells.
      offerTtlMs: CLAIM_WATCH_MS + claimReadIntervalMs,
      retryAgentMs: intervalMs,
      declineHoldMs: offers.declineHoldMs ?? 30_000,
    },
  };
}

/**
 * The desk of one proxy, from its `queues` option; its re-reads go through the proxy's door and budget. The
 * router takes the re-reads' reads when they come at least as often as its checks, so the two make one read.
 */
export function createDesk(options: QueueOptions, door: Omit<ReconcileParts, 'events' | 'intervalMs'>): Desk {
  const events = options.events ?? createMemoryQueueEvents();
  const availability = options.availability ?? createMemoryAvailability();
  const claimReadIntervalMs = options.claimReadIntervalMs ?? CLAIM_READ_INTERVAL_MS;
  const reconcileIntervalMs = options.reconcileIntervalMs ?? RECONCILE_INTERVAL_MS;
  const reconciler = createQueueReconciler({ ...door, events, intervalMs: reconcileIntervalMs });
  const pacing = options.offers && offerPacing(options.offers, claimReadIntervalMs);
  const reads = pacing && reconcileIntervalMs <= pacing.intervalMs ? { reads: reconciler } : {};
  return {
    availability,
    offers: pacing ? createOfferRunner({ ...door, events, availability, claimReadIntervalMs, claimWatchMs: CLAIM_WATCH_MS, ...pacing, ...reads }) : undefined,
    notifySecret: options.notifySecret,
    queuesFor: (user) => options.queuesFor(user),
    events,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    claimReadIntervalMs,
    reconciler,
  };
}
