import type { QueueCaller } from './types.js';

/**
 * watchQueues(): the callers waiting in the user's queues, from the proxy's event stream (DESIGN.md, "Support
 * desks"). A `snapshot` on every (re)connection replaces the list; `call.received` and `call.requeued` add a
 * caller, `call.ended` and `call.claimed` take one away. EventSource reconnects by itself after a drop, and the
 * snapshot that follows makes up for anything missed meanwhile: the queue is never polled.
 *
 * @remarks
 * Part of the SIP chunk (sip-adapter.ts re-exports it): a desk that watches its queues connects to answer them.
 * The few fields read are checked by hand (no schema library in the page).
 */

/** A caller as the stream sends one, if it has the fields the list shows. */
function callerOf(data: unknown): QueueCaller | undefined {
  const caller = data as Partial<QueueCaller> | null;
  const fields = [caller?.callId, caller?.queueId, caller?.from, caller?.to, caller?.since];
  return fields.every((field) => typeof field === 'string') ? (caller as QueueCaller) : undefined;
}

/** Opens the stream at `url` and tells `listener` the waiting callers, oldest first; returns what closes it. */
export function watchQueueStream(url: string, listener: (callers: readonly QueueCaller[]) => void): () => void {
  const waiting = new Map<string, QueueCaller>();
  const source = new EventSource(url);
  const on = (event: string, apply: (data: unknown) => void) =>
    source.addEventListener(event, (message) => {
      try {
        apply(JSON.parse((message as MessageEvent<string>).data));
      } catch {
        return;
      }
      listener([...waiting.values()].sort((a, b) => a.since.localeCompare(b.since)));
    });
  const add = (data: unknown) => {
    const caller = callerOf(data);
    if (caller) waiting.set(caller.callId, caller);
  };
  const remove = (data: unknown) => waiting.delete((data as { callId?: string } | null)?.callId ?? '');
  on('snapshot', (data) => {
    waiting.clear();
    for (const caller of (data as { callers?: unknown[] } | null)?.callers ?? []) add(caller);
  });
  on('call.received', add);
  on('call.requeued', add);
  on('call.ended', remove);
  on('call.claimed', remove);
  return () => source.close();
}
