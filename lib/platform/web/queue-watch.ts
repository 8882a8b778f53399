import type { Clock } from '../../core/clock.js';
import type { QueueCaller } from '../../core/helper-types.js';

/**
 * watchQueues(): the callers waiting in the user's queues, from the proxy's event stream (DESIGN.md, "Support
 * desks"). A `snapshot` on every (re)connection replaces the list; `call.received` and `call.requeued` add a
 * caller, `call.ended` and `call.claimed` take one away. The stream comes back by itself after a drop or an
 * error answer, and the snapshot that follows makes up for anything missed meanwhile: the queue is never polled.
 *
 * @remarks
 * Part of the SIP chunk (its entry loads it): a desk that watches its queues connects to answer them.
 * The few fields read are checked by hand (no schema library in the page).
 */

/** Whether the stream sent a caller with the fields the list shows. */
function isCaller(data: unknown): data is QueueCaller {
  const caller = data as Partial<QueueCaller> | null;
  return [caller?.callId, caller?.queueId, caller?.from, caller?.to, caller?.since].every((field) => typeof field === 'string');
}

/** How long after an error answer closed the stream it is opened again. */
export const REOPEN_MS = 5000;

/**
 * Opens the stream at `url` and tells `listener` the waiting callers, oldest first; returns what closes it. A reopen
 * whose timer a hidden page runs late only comes late: the snapshot it brings makes up for the wait.
 */
export function watchQueueStream(url: string, listener: (callers: readonly QueueCaller[]) => void, clock: Clock): () => void {
  const waiting = new Map<string, QueueCaller>();
  let source: EventSource;
  let reopen: unknown;
  const add = (data: unknown) => isCaller(data) && waiting.set(data.callId, data);
  const remove = (data: unknown) => waiting.delete((data as { callId?: string } | null)?.callId ?? '');
  const events: Record<string, (data: unknown) => void> = {
    snapshot(data) {
      waiting.clear();
      for (const caller of (data as { callers?: unknown[] } | null)?.callers ?? []) add(caller);
    },
    'call.received': add,
    'call.requeued': add,
    'call.ended': remove,
    'call.claimed': remove,
  };
  const open = () => {
    source = new EventSource(url);
    for (const [event, apply] of Object.entries(events)) {
      source.addEventListener(event, (message) => {
        try {
          apply(JSON.parse((message as MessageEvent<string>).data));
        } catch {
          return;
        }
        listener([...waiting.values()].sort((a, b) => a.since.localeCompare(b.since)));
      });
    }
    // EventSource reconnects by itself after a drop, but an error answer (429, 503, a proxy restarting) closes it
    // for good: it is opened again a little later.
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) reopen = clock.setTimeout(open, REOPEN_MS);
    };
  };
  open();
  return () => {
    clock.clearTimeout(reopen);
    source.close();
  };
}
