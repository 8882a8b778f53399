import { HttpError } from '../../contract/http-error.js';
import type { KeyBudget } from '../budget/key-budget.js';
import { budgetViewOf, callerOf, queueCallOf, type QueueCall } from './queue-calls.js';
import type { QueueEventBus } from './queue-events.js';
import type { Relay } from '../upstream/relay.js';
import type { Upstream } from '../upstream/upstream.js';
import { unref, type Clock } from '../time/clock.js';

/**
 * After a dequeue, the proxy watches the claimed call while it is `dequeuing`: an agent that does not answer
 * puts the caller back at the head of the queue (docs/desk.md), and the service sends no webhook
 * for that (spec 6.1 names only `call.received` and `call.ended`), so the proxy publishes `call.requeued`
 * itself and the other agents list the caller again.
 *
 * @remarks
 * Each read is a low-priority read of the key's budget (`admitRecoveryRead`), as the router's and the re-reads'
 * are: the page's own reads of its calls come first. A read the budget refuses is not made; the watch reads
 * again at its next interval. When its time runs out on a refused read, the watch logs it and ends: a caller
 * put back meanwhile is offered again by the router's next read, and listed by the panels when they next load.
 * Each read that shows the call keeps its place in the budget (`callSeen`), as a page's read of its call does.
 */

/** How the watch paces itself. */
export interface ClaimWatchOptions {
  /** Time between reads of the call, in ms. */
  intervalMs: number;
  /** How long the watch lasts at most, in ms: longer than the service's wait for the agent to answer. */
  maxMs: number;
}

/** Time between reads of a claimed call, by default: the page reads its own call as often (spec 8). */
export const CLAIM_READ_INTERVAL_MS = 1000;
/** The watch's longest life: the agent has 20 s to answer, and the reads need room around it. */
export const CLAIM_WATCH_MS = 30_000;

/** What the watch works through. */
export interface ClaimWatchParts {
  upstream: Upstream;
  ensureOk: Relay['ensureOk'];
  budget: Pick<KeyBudget, 'admitRecoveryRead' | 'callSeen'>;
  events: QueueEventBus;
  log: (line: string) => void;
  clock: Clock;
}

/** Resolves after `ms`, or at once when `signal` aborts; the timer never keeps the process alive. */
function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = clock.setTimeout(done, ms);
    unref(timer);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The call as read now: null when it is gone (404), undefined when the read failed and the next may not. */
async function readCall({ upstream, ensureOk, budget }: ClaimWatchParts, id: string): Promise<QueueCall | null | undefined> {
  try {
    const call = queueCallOf((ensureOk(await upstream({ method: 'GET', path: `/calls/${id}` })).body as { call?: unknown } | undefined)?.call);
    if (call) budget.callSeen(budgetViewOf(call));
    return call;
  } catch (error) {
    return error instanceof HttpError && error.status === 404 ? null : undefined;
  }
}

/** Reads the call until it leaves `dequeuing` or the time is up; back in `queued`, the caller is published. */
async function watch(parts: ClaimWatchParts, id: string, options: ClaimWatchOptions, signal: AbortSignal): Promise<void> {
  const deadline = parts.clock.now() + options.maxMs;
  /** Why the latest read was not made, while the budget refuses them. */
  let refused: string | undefined;
  while (parts.clock.now() + options.intervalMs <= deadline) {
    await pause(parts.clock, options.intervalMs, signal);
    if (signal.aborted) return;
    refused = await parts.budget.admitRecoveryRead().then(() => undefined, message);
    if (refused !== undefined) continue;
    const call = await readCall(parts, id);
    if (call === undefined || call?.state === 'dequeuing') continue;
    if (call?.state === 'queued') await parts.events.publish({ event: 'call.requeued', ...callerOf(call) });
    // Established, ended or gone: whatever comes next, a webhook or the agent's page tells.
    return;
  }
  if (refused !== undefined) parts.log(`voice proxy: a claimed call was watched no longer, its reads refused (${refused}); a caller put back meanwhile is not listed again until the panels load`);
}

/**
 * Watches the call a dequeue claimed (see the file comment), until it is settled, `maxMs` have passed, or the
 * bus ends its subscriptions (closed at shutdown; on Redis, its subscription dropped, when a publish would
 * fail too). Never rejects: a failure is logged.
 */
export async function watchClaim(parts: ClaimWatchParts, call: QueueCall, options: ClaimWatchOptions): Promise<void> {
  const stop = new AbortController();
  // Subscribed only to learn of the bus's end (shutdown); a bus that cannot be followed now still gets the watch.
  const unsubscribe = await parts.events.subscribe(() => undefined, () => stop.abort()).catch(() => undefined);
  try {
    await watch(parts, call.id, options, stop.signal);
  } catch (error) {
    parts.log(`voice proxy: a claimed call's return to its queue could not be published (${message(error)})`);
  } finally {
    unsubscribe?.();
  }
}
