import { TERMINAL_CALL_STATES, type BrowserCall, type CallAttempt, type CallInput, type StatusError } from '../types.js';

/**
 * The call part of the helper as a pure function: `transition(state, event) -> [state, effects]`.
 * It reads no clock and does no I/O; the runtime (`createRuntime`) commits the state, notifies, then runs the
 * effects.
 *
 * @remarks
 * ```
 *            startCall()                 202 {call}                terminal read
 *  (none) ──attempt_started──▶ creating ──attempt_admitted──▶ admitted ──call_read──▶ (none), busy false
 *                                 │   ╲                          ▲
 *                 4xx (nothing    │    ╲ answer lost             │ a read of the current session
 *                 was created)    ▼     ▼ (network, 5xx)         │ names the call (attempt_reconciled)
 *                 (none)      outcome_unknown ───────────────────┘
 *                                   ├──retry with the same key──▶ creating; its 4xx comes back to outcome_unknown
 *                                   └──the session ended and a read shows no call of it running──▶ (none)
 *
 *  recover(): (none) ──call_recovered──▶ a call without attempt, polled until its terminal read
 *  answerNext(): the same path, the dequeue in place of createCall; its lost answer is never retried, and when
 *  the reconciling reads of the agent's callers find none, the attempt is abandoned (busy false)
 *  monitor(): the same as answerNext(), the monitor leg's creation in place of the dequeue
 * ```
 * `busy` turns false only on a terminal read, when the service refused the attempt's only request (no call was
 * created), or when a read after the session's end shows that no call of the lost attempt runs. A refused retry
 * proves only that the retry made nothing: the lost request's call may run, so reads look for it again.
 * An unknown outcome is reconciled by reads (the reconciling effect), never by a new dial.
 * DESIGN.md: an INVITE is answered only when it names the attempt's call; one that comes before the call is
 * named is held (`heldInvite`) and answered or refused when the attempt settles.
 */

/**
 * An INVITE as the call machine sees it (the link's `IncomingInvite`): its id, the call it names, and for a
 * queue's caller their number; with the caller's queue once a read of the offered call said it. The effects
 * that answer or refuse it name it back.
 */
export interface InviteRef {
  readonly id: number;
  readonly callId: string | undefined;
  readonly caller?: string;
  readonly at: number;
  readonly queueId?: string;
  /** The service withdrew it while held for an attempt whose call is not named yet: the call is read once it is. */
  readonly withdrawn?: true;
}

export interface CallSlice {
  attempt: CallAttempt | null;
  call: BrowserCall | null;
  busy: boolean;
  error: StatusError | null;
  /**
   * hangup() came while the attempt had no call id (request in flight or answer lost): the call is hung up
   * once it is named, and its INVITE is never answered. Cleared by the call's end and by a new attempt.
   */
  hangupWanted: boolean;
  /**
   * The INVITE held while the attempt had no call id yet (it may come before the 202): answered once the
   * attempt's call is named and is the one it names, refused otherwise (DESIGN.md: only our own call's INVITE is
   * answered). With no attempt, a queue's caller offered to this agent (`status().offer`): it rings until
   * accept() makes it the attempt's, decline() refuses it, or the service withdraws it.
   */
  heldInvite: InviteRef | null;
  /** The last read failed: the page is told until a read succeeds (reads are safe to repeat; nothing else changes). */
  readFailing: boolean;
  /** The service said it records the call (`status().recording`): its answer to a start, until a stop or the call's end. */
  recording: boolean;
  /**
   * A request of this attempt lost its answer (from `attempt_unknown`, kept by a retry with the same key): the
   * call it may have made is only ruled out by a read, never by a refusal of a later request.
   */
  answerLost: boolean;
}

export type CallEvent =
  /** A new attempt; `accept`: accept() of the offer, whose INVITE becomes the attempt's (any other refuses it). */
  | { type: 'attempt_started'; idempotencyKey: string; input: CallInput; queueId?: string; monitor?: string; accept?: true }
  | { type: 'attempt_admitted'; call: BrowserCall }
  | { type: 'attempt_rejected'; error: StatusError }
  | { type: 'attempt_unknown'; error: StatusError }
  | { type: 'attempt_reconciled'; call: BrowserCall }
  /**
   * disconnect() ended the session, and a read of the user's current session after that end shows no call
   * of it running: whatever the lost request made is over, and a session that ended takes no new call.
   * Ending the session alone proves nothing; this read is the proof.
   */
  | { type: 'attempt_abandoned' }
  /** hangup() before the attempt's call is named (busy stays; the hangup waits for the id). */
  | { type: 'hangup_deferred' }
  /** The reconciling reads found nothing for long enough: they stop, the attempt stays unknown. */
  | { type: 'reconcile_exhausted'; error: StatusError }
  | { type: 'call_recovered'; call: BrowserCall }
  | { type: 'call_read'; call: BrowserCall }
  /** An INVITE came, naming a call (`X-Browser-Call-Id` or `X-Call-Id`) or none. */
  | { type: 'invite_received'; invite: InviteRef }
  /** The service withdrew INVITE `id` (CANCEL): it rings no more, and the call is read. */
  | { type: 'invite_withdrawn'; id: number; callId: string | undefined }
  /** decline() of the offer, or the offer unanswered for the page's `offers.ringMs`. */
  | { type: 'offer_declined' }
  /** A read of the offered call: its queue. */
  | { type: 'offer_read'; callId: string; queueId: string }
  | { type: 'read_failed'; error: StatusError }
  /** A read (of the call or of the current session) answered; what it read comes as its own event. */
  | { type: 'read_ok' }
  /** disconnect() is done with the call: reads stop, and an INVITE still held is refused. */
  | { type: 'reads_stopped' }
  /** The service answered startRecording() or stopRecording() of call `callId`. */
  | { type: 'recording_changed'; callId: string; recording: boolean };

export type CallEffect =
  | { type: 'start_polling'; callId: string }
  /** Read the current session until it names the attempt's call (reconcile without redialing). */
  | { type: 'start_reconciling' }
  | { type: 'stop_polling' }
  /** Ask the service to end the call: a hangup deferred until the call was named. */
  | { type: 'hang_up'; callId: string }
  | { type: 'call_ended'; call: BrowserCall }
  /** Answer this INVITE: it names the attempt's call. */
  | { type: 'answer_invite'; invite: InviteRef }
  /** Refuse this INVITE: it is not this page's call, or a hangup was asked for. */
  | { type: 'reject_invite'; invite: InviteRef }
  /** What `status().error` says about reads now (null clears it). */
  | { type: 'report'; error: StatusError | null }
  /** Read the call now, and again until it changed. */
  | { type: 'read'; expect: 'left' };

export const idleCall: CallSlice = { attempt: null, call: null, busy: false, error: null, hangupWanted: false, heldInvite: null, readFailing: false, recording: false, answerLost: false };

/** A read proves both legs stopped: the service says `busy: false`, or (without `busy`) a terminal state. */
export function isTerminal(call: BrowserCall): boolean {
  return call.busy === false || (call.busy === undefined && TERMINAL_CALL_STATES.has(call.state));
}

/** An older read of the same call must not overwrite a newer one (a slow poll racing a fast one). */
function isStale(current: BrowserCall | null, next: BrowserCall): boolean {
  const a = current?.revision;
  const b = next.revision;
  return current?.id === next.id && typeof a === 'number' && typeof b === 'number' && b < a;
}

export function settle(state: CallSlice, call: BrowserCall, effects: CallEffect[]): [CallSlice, CallEffect[]] {
  if (isTerminal(call)) {
    return [{ ...state, attempt: null, call, busy: false, hangupWanted: false, recording: false }, [...effects, { type: 'stop_polling' }, { type: 'call_ended', call }]];
  }
  return [{ ...state, call, busy: true }, effects];
}

/** The held INVITE, if any, is let go: refused, or answered when `answer` says it is the call's own. */
export function releaseHeld(state: CallSlice, answer = false): [CallSlice, CallEffect[]] {
  const invite = state.heldInvite;
  if (invite === null) return [state, []];
  return [{ ...state, heldInvite: null }, [invite.withdrawn ? { type: 'read', expect: 'left' } : { type: answer ? 'answer_invite' : 'reject_invite', invite }]];
}

/**
 * The reads' half of the machine: a call recover() found, its reads, and disconnect() done with it. The half of
 * the attempts (startCall(), answerNext(), accept(), monitor(), the INVITEs and the recording) comes with the
 * SIP chunk: none of its events can happen before a link is open, and a page that only recovers and cleans up
 * never downloads it. The runtime runs this half until then, the attempts' `transition` (both halves) after.
 */
export function readTransition(state: CallSlice, event: CallEvent): [CallSlice, CallEffect[]] {
  switch (event.type) {
    case 'call_recovered':
      if (state.attempt || state.busy) return [state, []];
      return settle({ ...state, call: null }, event.call, isTerminal(event.call) ? [] : [{ type: 'start_polling', callId: event.call.id }]);
    case 'call_read':
      if (!state.call || state.call.id !== event.call.id || isStale(state.call, event.call)) return [state, []];
      if (isTerminal(state.call)) return [state, []];
      return settle(state, event.call, []);
    case 'read_failed':
      return [{ ...state, readFailing: true }, [{ type: 'report', error: event.error }]];
    case 'read_ok':
      if (!state.readFailing) return [state, []];
      // The read error goes; an error of the call itself (a rejection, a lost answer) stays shown.
      return [{ ...state, readFailing: false }, state.error ? [] : [{ type: 'report', error: null }]];
    case 'reads_stopped': {
      const [released, effects] = releaseHeld(state);
      return [released, [{ type: 'stop_polling' }, ...effects]];
    }

    default:
      // Another machine's event, or one of the attempts' half (taken by the attempts' `transition`).
      return [state, []];
  }
}
