import { TERMINAL_CALL_STATES, type BrowserCall, type CallAttempt, type CallInput, type StatusError } from './types.js';

/**
 * The call part of the helper as a pure function: `transition(state, event) -> [state, effects]`.
 * It reads no clock and does no I/O; voice-browser.ts commits the state, notifies, then runs the effects.
 *
 * @remarks
 * ```
 *            startCall()                 202 {call}                terminal read
 *  (none) ──attempt_started──▶ creating ──attempt_admitted──▶ admitted ──call_read──▶ (none), busy false
 *                                 │   ╲                          ▲
 *                 4xx (nothing    │    ╲ answer lost             │ a read of the current session
 *                 was created)    ▼     ▼ (network, 5xx)         │ names the call (attempt_reconciled)
 *                 (none)      outcome_unknown ───────────────────┘
 *                                   ├──retry with the same key──▶ creating
 *                                   └──the session ended and a read shows no call of it running──▶ (none)
 *
 *  recover(): (none) ──call_recovered──▶ a call without attempt, polled until its terminal read
 * ```
 * spec 3.2: `busy` turns false only on a terminal read, when the service said no call was created, or when a
 * read after the session's end shows that no call of the lost attempt runs.
 * spec 7: an unknown outcome is reconciled by reads (the reconciling effect), never by a new dial.
 */

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
}

export type CallEvent =
  | { type: 'attempt_started'; idempotencyKey: string; input: CallInput }
  | { type: 'attempt_admitted'; call: BrowserCall }
  | { type: 'attempt_rejected'; error: StatusError }
  | { type: 'attempt_unknown'; error: StatusError }
  | { type: 'attempt_reconciled'; call: BrowserCall }
  /**
   * disconnect() ended the session, and a read of the user's current session after that end shows no call
   * of it running: whatever the lost request made is over, and a session that ended takes no new call.
   * spec 3.2: ending the session alone proves nothing; this read is the proof.
   */
  | { type: 'attempt_abandoned' }
  /** hangup() before the attempt's call is named (spec 3.2: busy stays; the hangup waits for the id). */
  | { type: 'hangup_deferred' }
  /** The reconciling reads found nothing for long enough: they stop, the attempt stays unknown (spec 7). */
  | { type: 'reconcile_exhausted'; error: StatusError }
  | { type: 'call_recovered'; call: BrowserCall }
  | { type: 'call_read'; call: BrowserCall };

export type CallEffect =
  | { type: 'start_polling'; callId: string }
  /** Read the current session until it names the attempt's call (spec 7: reconcile without redialing). */
  | { type: 'start_reconciling' }
  | { type: 'stop_polling' }
  /** Ask the service to end the call: a hangup deferred until the call was named. */
  | { type: 'hang_up'; callId: string }
  | { type: 'call_ended'; call: BrowserCall };

export const idleCall: CallSlice = { attempt: null, call: null, busy: false, error: null, hangupWanted: false };

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

function settle(state: CallSlice, call: BrowserCall, effects: CallEffect[]): [CallSlice, CallEffect[]] {
  if (isTerminal(call)) {
    return [{ ...state, attempt: null, call, busy: false, hangupWanted: false }, [...effects, { type: 'stop_polling' }, { type: 'call_ended', call }]];
  }
  return [{ ...state, call, busy: true }, effects];
}

export function transition(state: CallSlice, event: CallEvent): [CallSlice, CallEffect[]] {
  switch (event.type) {
    case 'attempt_started': {
      const retry = state.attempt?.phase === 'outcome_unknown' && state.attempt.idempotencyKey === event.idempotencyKey;
      return [
        // A retry is the same intent: a hangup asked for it still holds.
        { attempt: { idempotencyKey: event.idempotencyKey, input: event.input, phase: 'creating' }, call: null, busy: true, error: null, hangupWanted: retry && state.hangupWanted },
        // A retry ends the reconciling reads of the lost attempt: its answer will name the call.
        state.attempt?.phase === 'outcome_unknown' ? [{ type: 'stop_polling' }] : [],
      ];
    }
    case 'attempt_reconciled':
      if (state.attempt?.phase !== 'outcome_unknown') return [state, []];
    // falls through: a found call is admitted exactly as a 202 would have admitted it
    case 'attempt_admitted': {
      if (!state.attempt) return [state, []];
      const admitted = { ...state, attempt: { ...state.attempt, phase: 'admitted' as const }, error: null };
      const effects: CallEffect[] = [{ type: 'start_polling', callId: event.call.id }];
      if (state.hangupWanted && !isTerminal(event.call)) effects.push({ type: 'hang_up', callId: event.call.id });
      return settle(admitted, event.call, effects);
    }
    case 'hangup_deferred': {
      if (!state.attempt || state.attempt.phase === 'admitted') return [state, []];
      return [{ ...state, hangupWanted: true }, []];
    }
    case 'attempt_rejected':
      return [{ ...state, attempt: null, busy: state.call !== null && !isTerminal(state.call), error: event.error }, []];
    case 'attempt_unknown':
      if (!state.attempt) return [state, []];
      return [{ ...state, attempt: { ...state.attempt, phase: 'outcome_unknown' }, busy: true, error: event.error }, [{ type: 'start_reconciling' }]];
    case 'attempt_abandoned':
      if (state.attempt?.phase !== 'outcome_unknown') return [state, []];
      return [{ ...state, attempt: null, busy: false, error: null }, [{ type: 'stop_polling' }]];
    case 'reconcile_exhausted':
      if (state.attempt?.phase !== 'outcome_unknown') return [state, []];
      return [{ ...state, error: event.error }, [{ type: 'stop_polling' }]];
    case 'call_recovered':
      if (state.attempt || state.busy) return [state, []];
      return settle({ ...state, call: null }, event.call, isTerminal(event.call) ? [] : [{ type: 'start_polling', callId: event.call.id }]);
    case 'call_read':
      if (!state.call || state.call.id !== event.call.id || isStale(state.call, event.call)) return [state, []];
      if (isTerminal(state.call)) return [state, []];
      return settle(state, event.call, []);
  }
}
