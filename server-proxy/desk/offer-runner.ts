import { randomUUID } from 'node:crypto';
import { isBridged } from '../../contract/queue-call.js';
import type { AvailabilityStore } from './availability.js';
import { watchClaim } from './claim-watch.js';
import type { KeyBudget } from '../budget/key-budget.js';
import { emptyRouterState, route, type CallsRead, type RouterDecision, type RouterEvent, type RouterOptions, type RouterState } from './offer-router.js';
import { budgetViewOf, queueCallOf, queueCallsIn, type QueueCall } from './queue-calls.js';
import type { QueueEventBus, QueueUpdate, Unsubscribe } from './queue-events.js';
import type { QueueReconciler } from './queue-reconcile.js';
import type { Relay } from '../upstream/relay.js';
import type { Upstream } from '../upstream/upstream.js';
import { every, type Clock } from '../time/clock.js';

/**
 * The offer router's I/O: feeds `route` the bus's updates, the availability store and
 * a periodic read of the calls in progress, and runs what it decides: the dequeue with `connectTo` the chosen
 * agent, an unanswered agent set `away`, an agent's offer lease given up.
 *
 * @remarks
 * One replica routes at a time: the holder of the lease `offer-router` on the bus (the queues' re-reads,
 * `createQueueReconciler`, take a lease of their own), renewed at each check. A replica that loses it forgets what it believed; the next holder
 * starts from a read of the service, which shows every agent already ringing (`dequeuing`) or talking.
 * Each offer also holds a lease `offer-agent:<id>` from the decision until its dequeue answers (then a read shows
 * the agent ringing), so a holder that stalled past its own lease and a new one never dequeue for the same agent
 * at once; and a holder routes only within half its lease's life after taking it. A replica that dies mid-offer
 * leaves its leases to lapse, and the caller, unanswered, back at the head (the service's doing).
 *
 * The webhook is best effort (spec 6.1), so each check also reads the calls in progress, within the key's
 * budget (a refused read skips the round), but only while some agent is available: a desk nobody staffs costs
 * no reads. The panels' re-reads (`createQueueReconciler`) make the same read: while they run on this replica, the
 * router takes each of theirs as it is answered and makes none of its own, but for the first after it takes
 * its lease, since a router starting afresh must know at once which agents ring or talk.
 */

/** What the runner works through. */
export interface OfferRunnerParts {
  upstream: Upstream;
  ensureOk: Relay['ensureOk'];
  budget: KeyBudget;
  events: QueueEventBus;
  availability: AvailabilityStore;
  log: (line: string) => void;
  clock: Clock;
  router: RouterOptions;
  /** Time between checks. */
  intervalMs: number;
  /** Time between the reads of a claimed call (`watchClaim`). */
  claimReadIntervalMs: number;
  claimWatchMs: number;
  /** The panels' re-reads, when they read at least as often as the checks: their reads serve the router too. */
  reads?: Pick<QueueReconciler, 'reading' | 'onRead'>;
}

/** The routing of one proxy. */
export interface OfferRunner {
  /** Checks at once (a page said available, or opened its event stream), and resumes checks paused by a lost bus. */
  nudge(): void;
  stop(): void;
}

const LEASE = 'offer-router';
const agentLease = (agentId: string) => `offer-agent:${agentId}`;
/**
 * How long an agent's offer lease lasts unreleased: longer than the session read and the dequeue together, each
 * bounded by the upstream timeout. It is given up as soon as the dequeue answers, when reads show the agent taken.
 */
const AGENT_LEASE_MS = 25_000;
const leaseMs = (intervalMs: number) => Math.max(2 * intervalMs + 1000, 3000);

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The router's event for a bus update; a claim the router made itself is not news to it. */
function eventOf(update: QueueUpdate, state: RouterState, at: number): RouterEvent | null {
  if (update.event === 'call.ended') return { type: 'left', callId: update.callId, at };
  if (update.event === 'call.claimed') return [...state.offers.values()].some((offer) => offer.callId === update.callId) ? null : { type: 'left', callId: update.callId, at };
  // A caller's `since` corrected from a read of the queues: the router takes that read too, or reads for itself,
  // and each read replaces the waiting callers with their `createdAt`, so the correction is no news to it.
  if (update.event === 'call.updated') return null;
  return { type: 'waiting', callId: update.callId, queueId: update.queueId, since: Date.parse(update.since) || at, requeued: update.event === 'call.requeued', at };
}

/** The calls in progress, as the router takes them. */
function callsReadOf(calls: readonly QueueCall[]): CallsRead {
  return {
    queued: calls.filter((call) => call.state === 'queued').map((call) => ({ callId: call.id, queueId: call.queueId, since: Date.parse(call.createdAt) })),
    bridged: calls.flatMap(({ id, queueId, agentId, state }) => (agentId && isBridged(state) ? [{ callId: id, queueId, agentId, state }] : [])),
  };
}

/** The calls in progress, read by the router itself. */
async function readCalls(parts: OfferRunnerParts): Promise<CallsRead> {
  await parts.budget.admitRecoveryRead();
  return callsReadOf(queueCallsIn(parts.ensureOk(await parts.upstream({ method: 'GET', path: '/calls', query: { status: 'active' } })).body));
}

/** The runner as it stands: what the router believes, and where this replica is in its checks. */
interface Runner {
  parts: OfferRunnerParts;
  /** This replica's name on the leases. */
  holder: string;
  state: RouterState;
  /** Until when this replica routes: half its lease's life after it was last taken, so a stalled holder stops first. */
  holdingUntil: number;
  stopped: boolean;
  /** Whether a check is under way. */
  checking: boolean;
  /** Whether the log was told the checks fail, until one succeeds. */
  saidFailing: boolean;
  unsubscribe: Unsubscribe | undefined;
  /** Stops the checks' timer while they run. */
  stopChecks: (() => void) | undefined;
  /** Whether the router has made no read of its own since it last started afresh: until it has, it reads for itself. */
  unread: boolean;
  /** The subject of each agent id, for its session read. */
  subjects: Map<string, string>;
}

/** Forgets what the router believed: it starts afresh from its own read. */
function forget(runner: Runner): void {
  runner.state = emptyRouterState();
  runner.unread = true;
}

/** Routes `event` while this replica holds the lease, and carries out what the router decides. */
function dispatch(runner: Runner, event: RouterEvent): void {
  const { parts } = runner;
  if (runner.stopped || parts.clock.now() >= runner.holdingUntil) return;
  const [next, decisions] = route(runner.state, event, parts.router);
  runner.state = next;
  for (const decision of decisions) void carryOut(runner, decision).catch((error: unknown) => parts.log(`voice proxy: an offer could not be carried out (${message(error)})`));
}

/** Why a dequeue that brought no call failed, as the router takes it. */
function dequeueFailure(status: number, body: unknown): 'queue_empty' | 'agent_unavailable' | 'error' {
  if (status !== 409) return 'error';
  return (body as { code?: unknown } | undefined)?.code === 'queue_empty' ? 'queue_empty' : 'agent_unavailable';
}

/** Whether the agent's current session can ring now: active, and no call of theirs busy (spec 4.7). */
async function canRing(runner: Runner, agentId: string): Promise<boolean> {
  const { parts } = runner;
  const subject = runner.subjects.get(agentId);
  if (subject === undefined) return false;
  await parts.budget.admitRecoveryRead();
  const read = parts.ensureOk(await parts.upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: subject } })).body as { session?: { status?: unknown } | null; call?: { busy?: unknown } | null } | undefined;
  return read?.session?.status === 'active' && read.call?.busy !== true;
}

/** Dequeues the queue's head for the agent, under the agent's offer lease, and tells the router and the bus. */
async function offer(runner: Runner, queueId: string, agentId: string): Promise<void> {
  const { parts, holder } = runner;
  const failed = (reason: 'queue_empty' | 'agent_unavailable' | 'error') => dispatch(runner, { type: 'offer-failed', agentId, reason, at: parts.clock.now() });
  if (!(await parts.events.lease(agentLease(agentId), holder, AGENT_LEASE_MS).catch(() => false))) return failed('error');
  const release = () => parts.events.releaseLease(agentLease(agentId), holder).catch(() => undefined);
  if (!(await canRing(runner, agentId).catch(() => false))) return void (await release(), failed('agent_unavailable'));
  const response = await parts.upstream({ method: 'POST', path: `/queues/${queueId}/dequeue`, body: { connectTo: agentId }, lostCode: 'dequeue_outcome_unknown' }).finally(release);
  const call = response.status === 200 ? queueCallOf((response.body as { call?: unknown } | undefined)?.call) : null;
  if (!call) return failed(dequeueFailure(response.status, response.body));
  parts.budget.callSeen(budgetViewOf(call));
  dispatch(runner, { type: 'offered', agentId, queueId, callId: call.id, at: parts.clock.now() });
  await parts.events.publish({ event: 'call.claimed', callId: call.id, queueId: call.queueId });
  void watchClaim(parts, call, { intervalMs: parts.claimReadIntervalMs, maxMs: parts.claimWatchMs });
}

async function carryOut(runner: Runner, decision: RouterDecision): Promise<void> {
  const { parts } = runner;
  if (decision.type === 'offer') return offer(runner, decision.queueId, decision.agentId);
  if (decision.type === 'settled') return parts.events.releaseLease(agentLease(decision.agentId), runner.holder);
  const subject = runner.subjects.get(decision.agentId);
  const record = subject === undefined ? null : await parts.availability.get(subject);
  // An absent agent is not offered caller after caller.
  if (record) await parts.availability.set({ ...record, availability: 'away', since: parts.clock.now() });
}

/**
 * The subscription ended (the bus closed, or its Redis connection dropped): the checks pause until a nudge (a
 * page says available, or opens its event stream, as pages do again after a drop).
 */
function lost(runner: Runner): void {
  runner.stopChecks?.();
  runner.stopChecks = undefined;
  runner.unsubscribe = undefined;
  runner.holdingUntil = 0;
  forget(runner);
  void runner.parts.events.releaseLease(LEASE, runner.holder).catch(() => undefined);
}

/** One check: the lease, the agents as the store has them, a read of the calls when it is due, and the time. */
async function check(runner: Runner): Promise<void> {
  const { parts } = runner;
  // The router must hear every update while it routes: it takes the lease only while subscribed.
  runner.unsubscribe ??= await parts.events.subscribe(
    (update) => {
      const event = eventOf(update, runner.state, parts.clock.now());
      if (event) dispatch(runner, event);
    },
    () => lost(runner),
  );
  const takenAt = parts.clock.now();
  const holding = await parts.events.lease(LEASE, runner.holder, leaseMs(parts.intervalMs));
  runner.holdingUntil = holding ? takenAt + leaseMs(parts.intervalMs) / 2 : 0;
  if (!holding) return forget(runner);
  const records = await parts.availability.all();
  for (const record of records) {
    runner.subjects.set(record.agentId, record.subject);
    const { agentId, availability, since, queues } = record;
    dispatch(runner, { type: 'agent', agent: { agentId, availability, idleSince: since, queues }, at: parts.clock.now() });
  }
  if (records.some((record) => record.availability === 'available') && (runner.unread || !parts.reads?.reading())) {
    dispatch(runner, { type: 'read', calls: await readCalls(parts), at: parts.clock.now() });
    runner.unread = false;
  }
  dispatch(runner, { type: 'tick', at: parts.clock.now() });
}

/** Runs a check unless one is under way, telling the log when the checks start or stop failing. */
function tick(runner: Runner): void {
  const { parts } = runner;
  if (runner.checking || runner.stopped) return;
  runner.checking = true;
  check(runner)
    .then(() => {
      if (runner.saidFailing) parts.log('voice proxy: the offer queues are checked again');
      runner.saidFailing = false;
    })
    .catch((error: unknown) => {
      if (!runner.saidFailing) parts.log(`voice proxy: a check of the offer queues failed (${message(error)}); the next ones try again`);
      runner.saidFailing = true;
    })
    .finally(() => (runner.checking = false));
}

function nudge(runner: Runner): void {
  if (runner.stopped) return;
  runner.stopChecks ??= every(runner.parts.clock, runner.parts.intervalMs, () => tick(runner), true);
  tick(runner);
}

/** Starts routing the offer-mode queues, while subscribed to the bus, until `stop()`. */
export function createOfferRunner(parts: OfferRunnerParts): OfferRunner {
  const runner: Runner = {
    parts,
    holder: randomUUID(),
    state: emptyRouterState(),
    holdingUntil: 0,
    stopped: false,
    checking: false,
    saidFailing: false,
    unsubscribe: undefined,
    stopChecks: undefined,
    unread: true,
    subjects: new Map(),
  };
  // The re-reads' reads, each taken as it is answered, as fresh as one of the router's own.
  const stopTaking = parts.reads?.onRead((calls) => dispatch(runner, { type: 'read', calls: callsReadOf(calls), at: parts.clock.now() }));
  nudge(runner);
  return {
    nudge: () => nudge(runner),
    stop() {
      runner.stopped = true;
      stopTaking?.();
      runner.unsubscribe?.();
      lost(runner);
    },
  };
}
