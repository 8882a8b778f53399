import { isVoiceBrowserError } from '../core/errors.js';
import type { CallRoutes } from './call-reads.js';
import type { BrowserCall } from '../core/types.js';
import type { QueueCall, VoiceBackend } from '../core/backend-types.js';
import type { BridgedQueueState } from '../../contract/queue-call.js';

/**
 * A caller claimed from a queue, seen as the helper's call (DESIGN.md, "Support desks"): the service's generic
 * states (spec 3.1) shown in the browser call's, so that one machine, one poller and one diagram serve both.
 * For the agent the call is over once the caller is no longer bridged to it: finished, failed, or back in the
 * queue (`queued`: the agent did not answer in time), or claimed by another agent since (the read is a 404).
 */

/**
 * The generic states in which the caller is bridged (or being bridged) to this agent, as the browser call's: a
 * queue's caller in each of the contract's bridged states, a monitor leg while it is placed or up.
 */
const BRIDGED: Record<string, string> = {
  calling: 'waiting_agent',
  ringing: 'waiting_agent',
  pre_established: 'waiting_agent',
  dequeuing: 'waiting_agent',
  established: 'connected',
} satisfies Record<BridgedQueueState | 'calling' | 'ringing' | 'pre_established', string>;

/**
 * The generic call as the helper's call: every field kept, the service's own state in `serviceState`, `state`
 * in a browser call's, and `busy` as for this agent (any other state, `queued` included, is over for it).
 */
export function asBrowserCall(call: QueueCall): BrowserCall {
  const bridged = BRIDGED[call.state];
  return { ...call, serviceState: call.state, state: bridged ?? (call.state === 'failed' ? 'failed' : 'ended'), busy: bridged !== undefined };
}

/** A claimed caller's routes: the queue's reads and hangup, and the agent's claimed callers after a lost dequeue. */
export function queueRoutes(backend: VoiceBackend): CallRoutes {
  const routes = backend as Required<Pick<VoiceBackend, 'getQueueCall' | 'hangupQueueCall' | 'listQueueCalls'>>;
  return {
    read: (id, options) =>
      routes.getQueueCall(id, options).then(
        ({ call }) => asBrowserCall(call),
        (error: unknown) => {
          // Another agent claimed the caller since (it went back to the queue meanwhile): over for this one.
          if (isVoiceBrowserError(error) && error.status === 404) return { id, state: 'ended', busy: false, endReason: 'claimed_elsewhere' };
          throw error;
        },
      ),
    hangup: (id, options) => routes.hangupQueueCall(id, options).then(({ call }) => asBrowserCall(call)),
    find: (options) => routes.listQueueCalls(options).then(({ calls }) => calls.map(asBrowserCall).find((call) => call.busy) ?? null),
  };
}

/** The caller still bridged to this agent, with its routes, if a read of its claimed callers finds one (recover()). */
export async function claimedCaller(backend: VoiceBackend, signal: AbortSignal): Promise<{ call: BrowserCall; routes: CallRoutes } | null> {
  const routes = queueRoutes(backend);
  const call = await routes.find({ signal });
  return call && { call, routes };
}
