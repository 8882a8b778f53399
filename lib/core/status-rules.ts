import { isTerminal } from './machines/call-machine.js';
import { RENEWABLE_CONNECTIONS, type VoiceBrowserStatus } from './types.js';

/**
 * Which of the helper's methods go ahead now, read from a status: the rules the helper applies before it acts,
 * exported so that a page offers a control exactly when the helper would take it.
 *
 * @remarks
 * The helper decides by these same functions (its methods, the call control and the shared tabs' forwarding);
 * what else a method checks, on state the status does not show, each says.
 */

/** The connection takes calls: only `ready`, with its session. */
const takesCalls = (status: VoiceBrowserStatus) => status.connection === 'ready' && !!status.session;

/**
 * `status.attempt` is a `startCall()` whose answer was lost (spec 7): `startCall()` with its key and input
 * (both in `status.attempt`) retries it, when the connection takes calls ({@link canCall}), where a new key
 * is refused while it is busy. Not an `answerNext()`'s nor a `monitor()`'s: they have no key to retry with,
 * and reads find the caller claimed or the leg made, if any.
 */
export function canRetryCall(status: VoiceBrowserStatus): boolean {
  return status.attempt?.phase === 'outcome_unknown' && !status.attempt.queueId && !status.attempt.monitor;
}

/**
 * `startCall()` goes ahead: the connection takes calls, and nothing is busy, or the call to place is the retry
 * of a lost attempt ({@link canRetryCall}). It also refuses numbers that are not E.164, a missing or malformed
 * key, and a retry whose input differs from the attempt's.
 */
export function canCall(status: VoiceBrowserStatus): boolean {
  return takesCalls(status) && (!status.busy || canRetryCall(status));
}

/** `answerNext()` goes ahead: the connection takes calls and nothing is busy. It also needs a backend with `dequeue()`. */
export function canAnswerNext(status: VoiceBrowserStatus): boolean {
  return takesCalls(status) && !status.busy;
}

/**
 * `connect()` goes ahead: nothing is held, neither a session (to clean up with `disconnect()` first) nor a
 * call the last `disconnect()` could not prove ended (spec 3.2); `disconnect()` then has nothing to end. While
 * `ready`, `connect()` resolves at once; a `connect()` in flight is joined, and one called during `recover()`
 * or `preflight()` waits for that to end.
 */
export function canConnect(status: VoiceBrowserStatus): boolean {
  return status.connection === 'disconnected' && !status.session && !status.busy;
}

/** `renew()` goes ahead (spec 4.9): nothing is busy, and the connection holds a session the helper can replace. A `renew()` in flight is joined. */
export function canRenew(status: VoiceBrowserStatus): boolean {
  return !status.busy && RENEWABLE_CONNECTIONS.has(status.connection);
}

/**
 * `sendDtmf()` sends a digit: a call still running whose audio this page holds (its `audio` is not `none`),
 * whatever its state, and not a `monitor()` leg (it only listens). It also needs the SIP link of this page's session, and exactly one of `0-9 * # A-D`.
 */
export function canSendDtmf(status: VoiceBrowserStatus): boolean {
  return !!status.call && !isTerminal(status.call) && status.audio !== 'none' && !status.attempt?.monitor;
}
