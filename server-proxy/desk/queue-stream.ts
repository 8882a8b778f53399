import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { KeyBudget } from '../budget/key-budget.js';
import { callerOf, queueCallsIn } from './queue-calls.js';
import type { QueueEventBus, QueueUpdate, WaitingCaller } from './queue-events.js';
import type { QueueReconciler } from './queue-reconcile.js';
import { createWaitingView, type WaitingView } from './queue-view.js';
import type { Relay } from '../upstream/relay.js';
import type { Upstream } from '../upstream/upstream.js';
import { every, type Clock } from '../time/clock.js';

/**
 * `GET /queue-events`: the logged-in agent's Server-Sent Events. On connect, a `snapshot` of the callers
 * waiting in the user's queues, read from the service; then each change to them as the bus brings it. The
 * subscription is made before the read, and what it brings meanwhile is applied after the snapshot, so no
 * change falls between the two and none is shown twice (`createWaitingView`).
 *
 * @remarks
 * While a stream is open the proxy also re-reads the queues (`createQueueReconciler`): a webhook lost on its way (spec
 * 6.1: no retry) reaches the stream as the update it would have been, a few seconds late.
 *
 * Events carry no `id`: a reconnect gets a fresh snapshot, which is the whole state. `retry: 2000` sets the
 * browser's reconnect delay; a comment line every `heartbeatMs` keeps proxies from closing an idle stream.
 */

/** The browser's reconnect delay, in ms (sent as `retry:` with the snapshot). */
const RETRY_MS = 2000;

/** Writes waiting for a client that does not read; past them it is cut off, and reconnects to a snapshot. */
const MAX_PENDING_WRITES = 256;

/** What the stream works through. */
export interface StreamParts {
  upstream: Upstream;
  ensureOk: Relay['ensureOk'];
  budget: KeyBudget;
  events: QueueEventBus;
  /** The queues' re-reads, which run while a stream is open (`createQueueReconciler`). */
  reconciler: QueueReconciler;
  headers: Readonly<Record<string, string>>;
  heartbeatMs: number;
  clock: Clock;
}

/** The callers waiting now in the `allowed` queues, oldest first, as the service lists its active calls. */
export async function readWaiting({ upstream, ensureOk }: Pick<StreamParts, 'upstream' | 'ensureOk'>, allowed: ReadonlySet<string>): Promise<WaitingCaller[]> {
  const response = ensureOk(await upstream({ method: 'GET', path: '/calls', query: { status: 'active' } }));
  return queueCallsIn(response.body)
    .filter((call) => call.state === 'queued' && allowed.has(call.queueId))
    .map(callerOf);
}

/** Writes in order without holding the bus up; a client too slow to read is cut off. */
function createOutbox(stream: SSEStreamingApi) {
  let pending = 0;
  let chain: Promise<unknown> = Promise.resolve();
  const enqueue = (write: () => Promise<unknown>) => {
    if (stream.aborted || stream.closed) return;
    if (pending >= MAX_PENDING_WRITES) return void stream.abort();
    pending += 1;
    // A write that fails leaves the stream unusable: cut off, the page reconnects.
    chain = chain
      .then(write)
      .catch(() => stream.abort())
      .finally(() => (pending -= 1));
  };
  return {
    event: (name: string, data: unknown, retry?: number) => enqueue(() => stream.writeSSE({ event: name, data: JSON.stringify(data), ...(retry === undefined ? {} : { retry }) })),
    comment: (text: string) => enqueue(() => stream.write(`: ${text}\n\n`)),
    flushed: () => chain,
  };
}

/**
 * An update as the stream sends it: its name, and the rest as data. A `call.updated` goes as `call.received`:
 * a page lists callers by call id and takes a `call.received` for one it lists as that caller now (a Map's set,
 * the page's queue watch), so every page corrects its list with no code of its own, pages already loaded from an
 * older bundle included, and the page's bundle does not grow. A name of its own would need both. The view sends
 * it only for a caller it shows (`createWaitingView`), so a page never gets it for a caller it does not list.
 */
const sendUpdate = (outbox: ReturnType<typeof createOutbox>, { event, ...data }: QueueUpdate) => outbox.event(event === 'call.updated' ? 'call.received' : event, data);

/** What the subscription made before the stream opened hands over to it. */
interface Opening {
  view: WaitingView;
  callers: WaitingCaller[];
  /** The updates that came during the snapshot's read, in order. */
  held: QueueUpdate[];
  /** Points the subscription at the stream: updates and the bus's end go there from now on. */
  attach(onUpdate: (update: QueueUpdate) => void, onEnd: () => void): void;
  unsubscribe(): void;
}

/** Streams the snapshot, the held updates and then the live ones, until the client goes or the bus ends. */
async function runStream(stream: SSEStreamingApi, opening: Opening, parts: Pick<StreamParts, 'heartbeatMs' | 'clock'>, request: Request): Promise<void> {
  const outbox = createOutbox(stream);
  let finish = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const forward = (update: QueueUpdate) => {
    const shown = opening.view.next(update);
    if (shown) sendUpdate(outbox, shown);
  };
  // In one turn, so nothing the bus brings falls between the snapshot and the live updates.
  outbox.event('snapshot', { callers: opening.view.start(opening.callers) }, RETRY_MS);
  for (const update of opening.held.splice(0)) forward(update);
  opening.attach(forward, finish);

  stream.onAbort(finish);
  request.signal.addEventListener('abort', () => stream.abort(), { once: true });
  const stopHeartbeat = every(parts.clock, parts.heartbeatMs, () => outbox.comment('heartbeat'));
  await finished;
  stopHeartbeat();
  opening.unsubscribe();
  // The bus ended (shutdown, a lost Redis connection): what was written goes out, then the stream ends.
  if (!stream.aborted) await outbox.flushed();
}

/** Subscribes, then reads the snapshot; updates meanwhile are held for the stream. */
async function open(parts: StreamParts, allowed: ReadonlySet<string>): Promise<Opening> {
  const held: QueueUpdate[] = [];
  let endedEarly = false;
  let onUpdate: (update: QueueUpdate) => void = (update) => held.push(update);
  let onEnd: () => void = () => (endedEarly = true);
  const unsubscribe = await parts.events.subscribe(
    (update) => onUpdate(update),
    () => onEnd(),
  );
  try {
    // A low-priority read: refused when it would eat the reads kept for calls in progress.
    await parts.budget.admitRecoveryRead();
    const callers = await readWaiting(parts, allowed);
    return {
      view: createWaitingView(allowed),
      callers,
      held,
      attach: (update, end) => {
        onUpdate = update;
        onEnd = end;
        if (endedEarly) end();
      },
      unsubscribe,
    };
  } catch (error) {
    unsubscribe();
    throw error;
  }
}

/**
 * `GET /queue-events` for a user allowed the queues in `allowed`: a failure before the stream opens (the
 * snapshot's read refused, the bus down) is answered as the error it is, like any other route's.
 */
export async function followQueues(parts: StreamParts, c: Context, allowed: ReadonlySet<string>): Promise<Response> {
  // A page watches: the queues are re-read meanwhile, so a lost webhook does not leave its list wrong.
  const stopWatching = parts.reconciler.watch();
  const opening = await open(parts, allowed).catch((error: unknown) => {
    stopWatching();
    throw error;
  });
  const response = streamSSE(c, (stream) => runStream(stream, opening, parts, c.req.raw).finally(stopWatching));
  for (const [name, value] of Object.entries(parts.headers)) response.headers.set(name, value);
  // Every answer of the proxy is no-store; `no-transform` and the nginx hint keep the stream unbuffered.
  response.headers.set('Cache-Control', 'no-store, no-transform');
  response.headers.set('X-Accel-Buffering', 'no');
  return response;
}
