import { isTerminal } from './call-machine.js';
import { checkStart, copyInput, sameInput } from './call-input.js';
import { whyNoCalls } from './connection-machine.js';
import { isDefiniteRejection, toVoiceError, VoiceBrowserError } from './errors.js';
import type { Runtime } from './runtime.js';
import type { BrowserCall, CallInput } from './types.js';

/**
 * The call operations of the helper: startCall(), hangup(), taking up a recovered call, and proving after
 * the session's end that no call of it runs. Each sends events to the runtime (runtime.ts) and reads its
 * state; the call machine (call-machine.ts) decides, including which INVITE is answered.
 */

export type CallControl = ReturnType<typeof createCallControl>;

/** The call operations over one runtime; its closure holds only the startCall() request in flight. */
export function createCallControl(rt: Runtime) {
  const { backend } = rt;
  let starting: { key: string; promise: Promise<BrowserCall> } | undefined;

  async function create(input: CallInput, key: string, sessionId: string): Promise<BrowserCall> {
    try {
      const { call } = await backend.createCall({ ...input, sessionId }, { idempotencyKey: key, signal: rt.signal() });
      rt.call({ type: 'attempt_admitted', call });
      return call;
    } catch (cause) {
      const error = toVoiceError(cause, 'call_outcome_unknown', 'the call request got no answer');
      if (isDefiniteRejection(error)) {
        rt.call({ type: 'attempt_rejected', error: error.toStatus() });
        // The service knows first when a session lapsed early (revoked, expired at its clock): its definite
        // refusal of a call for the session stops the page offering calls (spec 7).
        if (error.code === 'browser_session_unavailable') rt.connection({ type: 'session_refused', error: error.toStatus() });
        throw error;
      }
      // spec 4.7, 7: a lost answer keeps the attempt and its key; the caller retries with the same key.
      const unknown = new VoiceBrowserError('call_outcome_unknown', 'the call may have been placed; retry startCall() with the same idempotencyKey', { cause: error });
      rt.call({ type: 'attempt_unknown', error: unknown.toStatus() });
      throw unknown;
    }
  }

  /** Refused with a coded error, or the attempt's call (a double click joins the request in flight). */
  function startCall(input: CallInput, callOptions: { idempotencyKey: string }): Promise<BrowserCall> {
    const key = callOptions?.idempotencyKey;
    const invalid = checkStart(input, key);
    if (invalid) return rt.fail(invalid);
    // A double click with the same key joins the request in flight: one intent, one call.
    if (starting?.key === key) return starting.promise;
    const { attempt, call, busy } = rt.callState;
    if (attempt?.idempotencyKey === key && attempt.phase === 'admitted' && call) return Promise.resolve(call);
    const retry = attempt?.idempotencyKey === key && attempt.phase === 'outcome_unknown';
    if (busy && !retry) return rt.fail(new VoiceBrowserError('browser_agent_busy', 'a call is still active; wait until busy is false or hang up'));
    if (retry && !sameInput(attempt.input, input)) {
      // The service would answer 409 idempotency_conflict, which proves nothing about the first attempt.
      return rt.fail(new VoiceBrowserError('invalid_argument', 'a retry must repeat the attempt it retries: same key, same from, to and options'));
    }
    const noCalls = whyNoCalls(rt.connectionState);
    const session = rt.connectionState.session;
    if (noCalls !== null || !session) return rt.fail(new VoiceBrowserError('browser_session_unavailable', noCalls ?? 'no session'));
    const own = copyInput(input);
    rt.setOrigin({ sessionId: session.id, startedAt: retry ? rt.origin?.startedAt : rt.clock.now() });
    rt.call({ type: 'attempt_started', idempotencyKey: key, input: own });
    const promise = create(own, key, session.id).finally(() => {
      if (starting?.promise === promise) starting = undefined;
    });
    starting = { key, promise };
    return promise;
  }

  /** Asks the service to end the call; with no call id yet, as soon as one is known (spec 3.2: busy stays). */
  function hangup(): Promise<void> {
    const { attempt } = rt.callState;
    if (attempt && attempt.phase !== 'admitted') {
      // createCall in flight or its answer lost: hang up when the call is named, and refuse a held INVITE now.
      rt.call({ type: 'hangup_deferred' });
      return Promise.resolve();
    }
    return rt.hangupCall();
  }

  /**
   * After the session ended (disconnect()): reads until the service proves that no call of this page runs,
   * for at most `ms`. spec 3.2: ending the session is not that proof. A known call is read until a read
   * says it is over. A lost request's call is looked for in the user's current session: named there, it is
   * read until it ends; absent, none runs, and none can start on a session that ended.
   * @returns true once proven; false when a read failed or the call still runs (busy stays true).
   */
  async function proveEnded(ms: number): Promise<boolean> {
    if (!rt.callState.busy) return true;
    if (rt.callState.attempt?.phase === 'outcome_unknown') {
      const current = await backend.getCurrentSession({ signal: new AbortController().signal }).catch(() => undefined);
      if (!current) return false;
      const { call } = current;
      if (!call || call.sessionId !== rt.origin?.sessionId || rt.seen(call.id)) {
        rt.call({ type: 'attempt_abandoned' });
        return true;
      }
      rt.call({ type: 'attempt_reconciled', call });
    }
    const { call, busy, attempt } = rt.callState;
    if (!busy || !call || attempt?.phase === 'creating') return !busy;
    rt.readCallNow(call.id);
    return rt.waitForCallEnd(ms);
  }

  return {
    startCall,
    hangup,
    proveEnded,
    /** A call is up whose audio this page holds (it may still be connecting): DTMF may go on it. */
    get answered(): boolean {
      const { call } = rt.callState;
      return !!call && !isTerminal(call) && rt.status().audio !== 'none';
    },
    /**
     * A call found by recover(): shown and polled until its terminal read, never re-answered (spec 4.9).
     * Its milestones carry no `sinceStartMs`: it did not start in this page.
     */
    adopt(call: BrowserCall, sessionId: string): void {
      rt.setOrigin({ sessionId });
      rt.call({ type: 'call_recovered', call });
    },
  };
}
