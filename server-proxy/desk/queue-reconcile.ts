import { randomUUID } from 'node:crypto';
import { HttpError } from '../../contract/http-error.js';
import type { KeyBudget } from '../budget/key-budget.js';
import { callerOf, isTerminal, queueCallOf, queueCallsIn, type QueueCall } from './queue-calls.js';
import type { QueueEventBus, QueueUpdate, Unsubscribe } from './queue-events.js';
import { DEDUPE_TTL_SECONDS } from '../routes/queue-webhook-receiver.js';
import type { Relay } from '../upstream/relay.js';
import type { Upstream } from '../upstream/upstream.js';
import { unref, type Clock } from '../time/clock.js';

/**
 * The queue webhook is best effort (spec 6.1: one attempt, 5 s, no retry), so the agents' event streams do not
 * live on webhooks alone: while at least one page watches, the proxy re-reads the key's calls in progress every
 * {@link RECONCILE_INTERVAL_MS} and publishes on the bus what changed that no update told: a caller waiting whose
 * `call.received` never came, and a caller gone whose `call.ended` never came, each exactly as the webhook would
 * have been published (`call.received` with the caller, `call.ended` with the call's terminal state, read).
 *
 * @remarks
 * Never twice: the re-read takes the same dedupe key as the webhook receiver (`call.received:<id>`,
 * `call.ended:<id>`, `firstSeen` on the bus), so whichever of the webhook and the re-read comes first publishes,
 * and a webhook that arrives late is dropped as the replay it now is. A read is a moment that passed by the time
 * it is answered: a caller the bus told of while it was out is left to the next round.
 *
 * Replicas: one re-reads at a time, the holder of a short lease on the bus (`lease`, renewed each round, given
 * up when its last page goes), and publishes for every replica's pages through the bus. Chosen over each replica
 * reading for its own pages because the reads would then grow with the replicas, and the key's quota does not.
 * It re-reads every queue of the key, not only its own pages' (the pages' views keep to their own queues): the
 * holder cannot know the queues the other replicas' pages watch.
 *
 * The webhook carries no creation time, so a caller it told of waits `since` the webhook was received, and
 * webhooks that come out of order list callers out of order. A caller the read shows waiting whose `since` as
 * last told is not its `createdAt` is told again once, as `call.updated` with the read's `since`, under its own
 * dedupe key (`call.updated:<id>`), so no replica and no round repeats it. A caller whose `call.received` came
 * before this run began (its `since` not known here) is corrected the same way, once, a round later.
 *
 * A caller claimed by a dequeue elsewhere (not through this proxy) is `call.claimed` once seen so; a caller put
 * back unanswered is the claim watch's to tell (`watchClaim`), not this one's.
 *
 * The offer router needs the same read (`createOfferRunner`): each read is handed to `onRead` listeners as it is
 * answered, so while this replica re-reads (`reading()`), the router takes these reads instead of making its own.
 */

/**
 * Time between re-reads: as long as a lost webhook may leave the panels wrong, and short enough that the re-reads
 * and a call in progress still fit a key's default quota together (docs/desk.md, "Queues and Answer next", gives the arithmetic).
 * Each is a low-priority read: refused by the budget when it would eat the reads kept for calls in progress, that
 * round is skipped.
 */
export const RECONCILE_INTERVAL_MS = 4000;

/** The lease's name on the bus, and how long it lasts without renewal: a holder gone is taken over by then. */
const LEASE = 'queue-reconcile';
const leaseMs = (intervalMs: number) => Math.max(2 * intervalMs + 1000, 3000);

/** At most this many calls gone without their `call.ended` are read in one round; the rest wait for the next. */
const END_READS_PER_ROUND = 5;

/** What the re-reads work through. */
export interface ReconcileParts {
  /** The proxy's door heard by no request. */
  upstream: Upstream;
  ensureOk: Relay['ensureOk'];
  budget: KeyBudget;
  events: QueueEventBus;
  log: (line: string) => void;
  clock: Clock;
  /** Default {@link RECONCILE_INTERVAL_MS}. */
  intervalMs: number;
}

/** The re-reads of one proxy. */
export interface QueueReconciler {
  /** A page watches from now on: the re-reads run while any does. Returns what says it stopped watching. */
  watch(): () => void;
  /** Whether this replica re-reads now: its latest round took the lease (its read may still have been refused). */
  reading(): boolean;
  /** Hands `listener` each read of the calls in progress as it is answered; returns what stops that. */
  onRead(listener: (calls: readonly QueueCall[]) => void): () => void;
}

/** One run of re-reads, from the first page watching to the last one gone. */
interface Run {
  /** The callers last known waiting (read so, or told by the bus), by call id, to their queue and `since` as told. */
  waiting: Map<string, { queueId: string; since: string }>;
  /** Call ids the bus told of during the round under way; null between rounds. */
  touched: Set<string> | null;
  timer: unknown;
  unsubscribe: Unsubscribe | undefined;
  stopped: boolean;
  /** Whether the latest round took the lease. */
  holding: boolean;
}

/** Follows the bus: what it tells changes the callers known waiting, and marks the round's reads stale for them. */
function track(run: Run, update: QueueUpdate): void {
  run.touched?.add(update.callId);
  const known = run.waiting.get(update.callId);
  if (update.event === 'call.received' || update.event === 'call.requeued') run.waiting.set(update.callId, { queueId: update.queueId, since: update.since });
  // A correction of a caller no longer waiting here (claimed or ended first) does not bring it back.
  else if (update.event === 'call.updated') {
    if (known) known.since = update.since;
  } else run.waiting.delete(update.callId);
}

/** A call read now: null when the service no longer has it (404), undefined when the read failed or was refused. */
async function readCall(parts: ReconcileParts, id: string): Promise<QueueCall | null | undefined> {
  try {
    await parts.budget.admitRecoveryRead();
    return queueCallOf((parts.ensureOk(await parts.upstream({ method: 'GET', path: `/calls/${id}` })).body as { call?: unknown } | undefined)?.call);
  } catch (error) {
    return error instanceof HttpError && error.status === 404 ? null : undefined;
  }
}

/**
 * Publishes `update` unless the webhook (or another round) already did: the receiver's dedupe key decides.
 * Whether the key was new here.
 */
async function publishOnce(parts: ReconcileParts, run: Run, update: QueueUpdate): Promise<boolean> {
  if (!(await parts.events.firstSeen(`${update.event}:${update.callId}`, DEDUPE_TTL_SECONDS))) return false;
  // The bus told of the caller meanwhile: that is newer than the read.
  if (!run.touched?.has(update.callId)) await parts.events.publish(update);
  return true;
}

/**
 * Tells `call` again with the read's `since`, once whichever replica or round comes first. Published even when
 * the bus told of the caller while the key was taken: what it told came first on the bus, and a claim or an end
 * is not undone (every stream's view drops a correction of a caller it no longer shows).
 */
async function correct(parts: ReconcileParts, run: Run, call: QueueCall): Promise<void> {
  const caller = callerOf(call);
  run.waiting.set(call.id, { queueId: call.queueId, since: caller.since });
  if (await parts.events.firstSeen(`call.updated:${call.id}`, DEDUPE_TTL_SECONDS)) await parts.events.publish({ event: 'call.updated', ...caller });
}

/** A caller no longer waiting, whose leaving no update told: claimed elsewhere, or ended (its state read). */
async function left(parts: ReconcileParts, run: Run, id: string, queueId: string, active: ReadonlyMap<string, QueueCall>, reads: { left: number }): Promise<void> {
  if (active.has(id)) {
    run.waiting.delete(id);
    return void (await parts.events.publish({ event: 'call.claimed', callId: id, queueId }));
  }
  if (reads.left <= 0) return;
  reads.left -= 1;
  const call = await readCall(parts, id);
  if (call === undefined || (call !== null && !isTerminal(call.state)) || run.touched?.has(id)) return;
  run.waiting.delete(id);
  // A call the service no longer has is over; its state is not known, and `finished` is how a caller leaves.
  await publishOnce(parts, run, { event: 'call.ended', callId: id, queueId, state: call?.state ?? 'finished' });
}

/** One round: re-reads the calls in progress, hands the read on, and publishes what no update told. */
async function round(parts: ReconcileParts, run: Run, handOn: (calls: readonly QueueCall[]) => void): Promise<void> {
  await parts.budget.admitRecoveryRead();
  run.touched = new Set();
  const calls = queueCallsIn(parts.ensureOk(await parts.upstream({ method: 'GET', path: '/calls', query: { status: 'active' } })).body);
  handOn(calls);
  const active = new Map(calls.map((call) => [call.id, call]));
  const queued = calls.filter((call) => call.state === 'queued');
  for (const call of queued) {
    // Told of while the read was out: left to the next round, which knows what the bus told.
    if (run.touched.has(call.id)) continue;
    const known = run.waiting.get(call.id);
    if (known?.since === call.createdAt) continue;
    if (known) {
      await correct(parts, run, call);
      continue;
    }
    run.waiting.set(call.id, { queueId: call.queueId, since: call.createdAt });
    if (await publishOnce(parts, run, { event: 'call.received', ...callerOf(call) })) continue;
    // Told already: before this run began, with a `since` not known here, or by a webhook whose publish may still
    // be on its way. Corrected next round, after anything that publish brings.
    const entry = run.waiting.get(call.id);
    if (entry?.since === call.createdAt) entry.since = '';
  }
  const stillQueued = new Set(queued.map((call) => call.id));
  const reads = { left: END_READS_PER_ROUND };
  for (const [id, { queueId }] of [...run.waiting]) {
    if (stillQueued.has(id) || run.touched.has(id) || run.stopped) continue;
    await left(parts, run, id, queueId, active, reads);
  }
}

/** The re-reads of one proxy as they stand: its run while pages watch, and who takes each read. */
interface Reconciler {
  parts: ReconcileParts;
  /** This replica's name on the lease. */
  holder: string;
  watchers: number;
  run: Run | undefined;
  /** Whether the log was told the re-reads fail, until one succeeds. */
  saidFailing: boolean;
  listeners: Set<(calls: readonly QueueCall[]) => void>;
}

/** Hands a read to each listener; one that throws is logged and keeps the others fed. */
function handOn(reconciler: Reconciler, calls: readonly QueueCall[]): void {
  for (const listener of reconciler.listeners) {
    try {
      listener(calls);
    } catch (error) {
      reconciler.parts.log(`voice proxy: a read of the queues could not be handed on (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

function scheduleRound(reconciler: Reconciler, current: Run): void {
  if (current.stopped) return;
  current.timer = reconciler.parts.clock.setTimeout(() => void tick(reconciler, current), reconciler.parts.intervalMs);
  unref(current.timer);
}

/** Takes the lease, re-reads when it holds it, and schedules the next round whatever happened. */
async function tick(reconciler: Reconciler, current: Run): Promise<void> {
  const { parts } = reconciler;
  try {
    current.holding = await parts.events.lease(LEASE, reconciler.holder, leaseMs(parts.intervalMs)).catch((error: unknown) => {
      current.holding = false;
      throw error;
    });
    if (current.holding) await round(parts, current, (calls) => handOn(reconciler, calls));
    if (reconciler.saidFailing) parts.log('voice proxy: the queues are re-read again');
    reconciler.saidFailing = false;
  } catch (error) {
    // A refused or failed read skips the round; the next one tries again.
    if (!reconciler.saidFailing) parts.log(`voice proxy: a re-read of the queues failed (${error instanceof Error ? error.message : String(error)}); the next one tries again`);
    reconciler.saidFailing = true;
  } finally {
    current.touched = null;
    scheduleRound(reconciler, current);
  }
}

function startRun(reconciler: Reconciler): void {
  const current: Run = { waiting: new Map(), touched: null, timer: undefined, unsubscribe: undefined, stopped: false, holding: false };
  reconciler.run = current;
  // Subscribed to follow what the bus tells, and to stop when it closes (shutdown).
  reconciler.parts.events.subscribe((update) => track(current, update), () => stopRun(reconciler)).then(
    (unsubscribe) => (current.stopped ? unsubscribe() : (current.unsubscribe = unsubscribe)),
    () => undefined,
  );
  scheduleRound(reconciler, current);
}

function stopRun(reconciler: Reconciler): void {
  const current = reconciler.run;
  if (!current) return;
  reconciler.run = undefined;
  current.stopped = true;
  reconciler.parts.clock.clearTimeout(current.timer);
  current.unsubscribe?.();
  void reconciler.parts.events.releaseLease(LEASE, reconciler.holder).catch(() => undefined);
}

/** Creates the re-reads of one proxy; nothing runs until a page watches. */
export function createQueueReconciler(parts: ReconcileParts): QueueReconciler {
  const reconciler: Reconciler = { parts, holder: randomUUID(), watchers: 0, run: undefined, saidFailing: false, listeners: new Set() };
  return {
    watch() {
      reconciler.watchers += 1;
      // Also after the bus ended the run (a Redis subscription lost): the pages' streams came back.
      if (!reconciler.run) startRun(reconciler);
      let done = false;
      return () => {
        if (done) return;
        done = true;
        reconciler.watchers -= 1;
        if (reconciler.watchers === 0) stopRun(reconciler);
      };
    },
    reading: () => reconciler.run?.holding ?? false,
    onRead(listener) {
      reconciler.listeners.add(listener);
      return () => void reconciler.listeners.delete(listener);
    },
  };
}
