import type { QueueUpdate, WaitingCaller } from './queue-events.js';

/**
 * What one agent's event stream has shown, so it shows each waiting caller once: the snapshot read from the
 * service and the webhooks overlap (a caller may be listed by the read and announced by its webhook a moment
 * later), and webhooks may arrive out of order (spec 6.1: separate single attempts).
 */

/** How many ended calls one stream remembers, to refuse an announcement that arrives after the end. */
const ENDED_REMEMBERED = 1000;

/** One stream's view; see the file comment. */
export interface WaitingView {
  /** The snapshot's callers of the allowed queues, now counted as shown. */
  start(callers: readonly WaitingCaller[]): WaitingCaller[];
  /**
   * What the agent gets of `update`: nothing for another queue, for a caller already shown or for one whose
   * call has ended; otherwise the update itself. A removal (`call.ended`, `call.claimed`) always goes through; a
   * correction (`call.updated`) only for a caller shown.
   */
  next(update: QueueUpdate): QueueUpdate | null;
}

/** A view over the queues in `allowed` (the user's `queuesFor`). */
export function createWaitingView(allowed: ReadonlySet<string>): WaitingView {
  const shown = new Set<string>();
  const ended = new Set<string>();
  const rememberEnded = (callId: string) => {
    ended.add(callId);
    // A Set iterates in insertion order: the first is the oldest.
    if (ended.size > ENDED_REMEMBERED) ended.delete(ended.values().next().value as string);
  };
  const show = (callId: string): boolean => {
    if (shown.has(callId) || ended.has(callId)) return false;
    shown.add(callId);
    return true;
  };

  return {
    start: (callers) => callers.filter((caller) => allowed.has(caller.queueId) && show(caller.callId)),
    next(update) {
      if (!allowed.has(update.queueId)) return null;
      switch (update.event) {
        case 'call.received':
        case 'call.requeued':
          return show(update.callId) ? update : null;
        case 'call.updated':
          // A correction of a caller this stream shows; one it never showed, or no longer does, is no news here.
          return shown.has(update.callId) ? update : null;
        case 'call.ended':
          rememberEnded(update.callId);
          shown.delete(update.callId);
          return update;
        case 'call.claimed':
          shown.delete(update.callId);
          return update;
      }
    },
  };
}
