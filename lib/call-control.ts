import { idleCall, isTerminal, transition, type CallEffect, type CallEvent, type CallSlice } from './call-machine.js';
import { checkStart, copyInput, sameInput } from './call-input.js';
import { createCallMilestones, type CallMilestone } from './call-milestones.js';
import type { Clock } from './clock.js';
import { isDefiniteRejection, toVoiceError, VoiceBrowserError } from './errors.js';
import { createPoller, type Poller } from './poller.js';
import type { IncomingInvite, SipEvents, SipLink } from './sip-adapter.js';
import type { StatusStore } from './status-store.js';
import type { BrowserCall, CallInput, VoiceBackend } from './types.js';

/**
 * The call half of the helper: attempts, the one poller, the INVITE rule and hangup.
 * It runs the effects of the pure call machine and reports through the status store.
 */

export interface CallControlOptions {
  backend: VoiceBackend;
  clock: Clock;
  store: StatusStore;
  link(): SipLink | undefined;
}

/**
 * Where a call may start: the session's id and the signal aborted when the helper disconnects; or the error
 * saying why no call can start now (the connection decides, see voice-browser.ts).
 */
export type CallSession = { id: string; signal: AbortSignal } | VoiceBrowserError;

export type CallControl = ReturnType<typeof createCallControl>;

/** How many past calls the helper remembers (for reconciliation and once-only milestones). */
const RECENT_CALLS = 16;
/**
 * How many reads of the current session look for the call of a lost request. A call the request made is
 * named by the first read while it runs; past the proxy's upstream deadline nothing new can appear, so
 * reading on would only spend the key's quota (spec 8) on a loop without end.
 */
export const RECONCILE_READS = 15;

export function createCallControl(options: CallControlOptions) {
  const { backend, clock, store } = options;
  let slice: CallSlice = idleCall;
  let poller: Poller | undefined;
  let heldInvite: IncomingInvite | undefined;
  let starting: { key: string; promise: Promise<BrowserCall> } | undefined;
  let hangingUp: Promise<void> | undefined;
  let readFailed = false;
  /** The session of the current call, and its lifetime's signal (aborted by disconnect()). */
  let lifetime: AbortSignal = new AbortController().signal;
  /** When this page started the current call; undefined for a call recover() found (no start here). */
  let callStartedAt: number | undefined;
  let sessionId: string | undefined;
  /** Set by stop(): a request that settles afterwards (aborted by disconnect()) starts no reads. */
  let stopped = false;
  const milestones = createCallMilestones(store, RECENT_CALLS);
  const endWaiters = new Set<() => void>();

  const fail = (error: VoiceBrowserError): Promise<never> => {
    store.commit({ error: error.toStatus() });
    return Promise.reject(error);
  };

  const callTiming = (name: CallMilestone, callId: string | undefined) => milestones.report(name, callId, callStartedAt);

  function dispatch(event: CallEvent): void {
    const [next, effects] = transition(slice, event);
    const errorChanged = next.error !== slice.error;
    slice = next;
    if (next.call) milestones.remember(next.call.id);
    store.commit({ attempt: next.attempt, call: next.call, busy: next.busy, ...(errorChanged ? { error: next.error } : {}) });
    if (next.call?.state === 'connected') callTiming('connected', next.call.id);
    for (const effect of effects) run(effect);
  }

  /** A failed read changes nothing (reads are safe to repeat), but the page is told until one succeeds. */
  const readFailure = (error: unknown) => {
    readFailed = true;
    store.commit({ error: toVoiceError(error, 'network_error', 'reading the call failed; retrying').toStatus() });
  };
  const readSuccess = () => {
    if (readFailed && !slice.error) store.commit({ error: null });
    readFailed = false;
  };

  function run(effect: CallEffect): void {
    switch (effect.type) {
      case 'start_polling':
        poller?.stop();
        if (stopped) return;
        poller = createPoller({
          clock,
          read: (signal) => backend.getCall(effect.callId, { signal }).then((r) => r.call),
          isTerminal,
          onRead: (call) => {
            readSuccess();
            dispatch({ type: 'call_read', call });
          },
          onError: readFailure,
        });
        return;
      case 'start_reconciling': {
        poller?.stop();
        if (stopped) return;
        let reads = 0;
        const exhausted = () => {
          if (++reads < RECONCILE_READS || slice.attempt?.phase !== 'outcome_unknown') return;
          dispatch({
            type: 'reconcile_exhausted',
            error: { code: 'call_outcome_unknown', message: 'no call of the lost request was found running; retry startCall() with the same idempotencyKey to learn its outcome, or disconnect()' },
          });
        };
        poller = createPoller({
          clock,
          read: (signal) => backend.getCurrentSession({ signal }),
          isTerminal: () => slice.attempt?.phase !== 'outcome_unknown',
          onRead: ({ call }) => {
            readSuccess();
            // Only this session's call, and one we have not seen before, can be the attempt's.
            if (call && call.sessionId === sessionId && !milestones.seen(call.id)) found(call);
            else exhausted();
          },
          onError: (error) => {
            readFailure(error);
            exhausted();
          },
        });
        return;
      }
      case 'stop_polling':
        poller?.stop();
        poller = undefined;
        return;
      case 'hang_up':
        void hangup().catch(() => undefined);
        return;
      case 'call_ended':
        callTiming('ended', effect.call.id);
        // The service says both legs are down; make sure our half of the dialog is too.
        options.link()?.endSession();
        if (store.get().audio !== 'none') store.commit({ audio: 'ended' });
        for (const wake of endWaiters) wake();
        endWaiters.clear();
        return;
    }
  }

  /** The service named the attempt's call (202, retry or reconciling read). */
  function found(call: BrowserCall): void {
    dispatch({ type: slice.attempt?.phase === 'outcome_unknown' ? 'attempt_reconciled' : 'attempt_admitted', call });
    callTiming('call_admitted', call.id);
    settleHeldInvite(call.id);
  }

  /**
   * SIP says the call just changed: read it now rather than at the next tick (DESIGN.md principles), and
   * again soon while the read does not show it yet (the service had not written it when the read came).
   */
  function readAfterSip(shown: () => boolean): void {
    poller?.pollNow({ shown });
  }
  /** The change an answer or an in-dialog INFO/NOTIFY announces: the call leaves the state it had. */
  function stateLeft(): () => boolean {
    const before = slice.call?.state;
    return () => slice.call?.state !== before;
  }

  function answer(invite: IncomingInvite): void {
    heldInvite = undefined;
    callTiming('invite_received', invite.callId);
    store.commit({ audio: 'connecting' });
    invite.accept().then(
      () => readAfterSip(stateLeft()),
      (error: unknown) => {
        // Withdrawn while we answered (a CANCEL crossed our 200 OK): the service gave the call up, and only
        // its read says how the call ended; there is nothing for the user to reconnect.
        if (!invite.withdrawn) {
          // SIP.js has already declined the INVITE; the service will end the call and a read will show it.
          store.commit({ error: toVoiceError(error, 'connection_failed', 'the call could not be answered in the browser').toStatus() });
        }
        poller?.pollNow({ shown: stateLeft() });
      },
    );
  }

  /**
   * The INVITE held while the call had no id: answered if it is this call's, rejected otherwise (DESIGN.md).
   * One the service withdrew meanwhile (CANCEL, 487) is dropped: the call's read says what became of it.
   */
  function settleHeldInvite(callId: string | undefined): void {
    const invite = heldInvite;
    heldInvite = undefined;
    if (!invite) return;
    if (invite.withdrawn) poller?.pollNow({ shown: stateLeft() });
    else if (callId !== undefined && invite.callId === callId && !slice.hangupWanted) answer(invite);
    else invite.reject();
  }

  const sipEvents: Pick<SipEvents, 'onInvite' | 'onSessionEnded' | 'onCallChanged' | 'onMediaConnected' | 'onMediaFailed' | 'onQuality'> = {
    onInvite(invite) {
      const attempt = slice.attempt;
      // Only our own call's INVITE is answered (DESIGN.md); it may come before the 202 does.
      if (attempt && invite.callId && slice.call?.id === invite.callId && !isTerminal(slice.call) && !slice.hangupWanted) return answer(invite);
      if (attempt && invite.callId && !slice.hangupWanted && (attempt.phase === 'creating' || attempt.phase === 'outcome_unknown')) {
        heldInvite?.reject();
        heldInvite = invite;
        return;
      }
      invite.reject();
    },
    // Our dialog is over: what the service shows next is the end (busy false), possibly after `ending`.
    onSessionEnded: () => readAfterSip(() => !!slice.call && isTerminal(slice.call)),
    onCallChanged: () => readAfterSip(stateLeft()),
    onMediaConnected: (callId) => callTiming('media_connected', callId),
    onMediaFailed: (callId) => {
      if (!callId || slice.call?.id !== callId || isTerminal(slice.call)) return;
      // Not an end (spec 3.2: only a read says so): the page is told its audio is gone, and what to do.
      store.commit({ audio: 'ended', error: { code: 'connection_failed', message: "the call's audio path failed (ICE/DTLS); hang up and call again" } });
      poller?.pollNow();
    },
    onQuality: (callId, quality) => store.timing('call_quality', callStartedAt, callId, quality),
  };

  async function create(input: CallInput, key: string): Promise<BrowserCall> {
    try {
      const { call } = await backend.createCall({ ...input, sessionId: sessionId ?? '' }, { idempotencyKey: key, signal: lifetime });
      found(call);
      return call;
    } catch (cause) {
      const error = toVoiceError(cause, 'call_outcome_unknown', 'the call request got no answer');
      if (isDefiniteRejection(error)) {
        // Nothing was created, so an INVITE held for this attempt is not ours.
        settleHeldInvite(undefined);
        dispatch({ type: 'attempt_rejected', error: error.toStatus() });
        throw error;
      }
      // spec 4.7, 7: a lost answer keeps the attempt and its key; the caller retries with the same key.
      const unknown = new VoiceBrowserError('call_outcome_unknown', 'the call may have been placed; retry startCall() with the same idempotencyKey', { cause: error });
      dispatch({ type: 'attempt_unknown', error: unknown.toStatus() });
      throw unknown;
    }
  }

  function startCall(input: CallInput, callOptions: { idempotencyKey: string }, session: CallSession): Promise<BrowserCall> {
    const key = callOptions?.idempotencyKey;
    const invalid = checkStart(input, key);
    if (invalid) return fail(invalid);
    // A double click with the same key joins the request in flight: one intent, one call.
    if (starting?.key === key) return starting.promise;
    const attempt = slice.attempt;
    if (attempt?.idempotencyKey === key && attempt.phase === 'admitted' && slice.call) return Promise.resolve(slice.call);
    const retry = attempt?.idempotencyKey === key && attempt.phase === 'outcome_unknown';
    if (slice.busy && !retry) {
      return fail(new VoiceBrowserError('browser_agent_busy', 'a call is still active; wait until busy is false or hang up'));
    }
    if (retry && !sameInput(attempt.input, input)) {
      // The service would answer 409 idempotency_conflict, which proves nothing about the first attempt.
      return fail(new VoiceBrowserError('invalid_argument', 'a retry must repeat the attempt it retries: same key, same from, to and options'));
    }
    if (session instanceof VoiceBrowserError) return fail(session);
    sessionId = session.id;
    lifetime = session.signal;
    stopped = false;
    const own = copyInput(input);
    if (!retry) callStartedAt = clock.now();
    dispatch({ type: 'attempt_started', idempotencyKey: key, input: own });
    const promise = create(own, key).finally(() => {
      if (starting?.promise === promise) starting = undefined;
    });
    starting = { key, promise };
    return promise;
  }

  async function postHangup(call: BrowserCall): Promise<void> {
    try {
      const { call: after } = await backend.hangupCall(call.id, { signal: lifetime });
      dispatch({ type: 'call_read', call: after });
    } catch (cause) {
      // The service did not take the hangup: end our leg by SIP BYE, which ends the call too.
      options.link()?.endSession();
      const error = toVoiceError(cause, 'cleanup_unknown', 'the hangup request failed; call hangup() again');
      store.commit({ error: error.toStatus() });
      throw error;
    } finally {
      poller?.pollNow();
    }
  }

  /** Asks the service to end the call; with no call id yet, as soon as one is known (spec 3.2: busy stays). */
  function hangup(): Promise<void> {
    if (hangingUp) return hangingUp;
    const call = slice.call;
    if (slice.attempt && slice.attempt.phase !== 'admitted') {
      // createCall in flight or its answer lost: hang up when the call is named, and refuse a held INVITE now.
      dispatch({ type: 'hangup_deferred' });
      settleHeldInvite(undefined);
      return Promise.resolve();
    }
    if (!call || isTerminal(call)) return Promise.resolve();
    hangingUp = postHangup(call).finally(() => (hangingUp = undefined));
    return hangingUp;
  }

  /** Resolves true once a terminal read came, false after `ms`. */
  function waitForEnd(ms: number): Promise<boolean> {
    if (!slice.busy) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => {
        endWaiters.delete(wake);
        resolve(false);
      }, ms);
      const wake = () => {
        clock.clearTimeout(timer);
        resolve(true);
      };
      endWaiters.add(wake);
    });
  }

  return {
    sipEvents,
    startCall,
    hangup,
    get busy() {
      return slice.busy;
    },
    get outcomeUnknown() {
      return slice.attempt?.phase === 'outcome_unknown';
    },
    /** A call is up whose audio this page holds (it may still be connecting): DTMF may go on it. */
    get answered(): boolean {
      return !!slice.call && !isTerminal(slice.call) && store.get().audio !== 'none';
    },
    /**
     * A call found by recover(): shown and polled until its terminal read, never re-answered (spec 4.9).
     * Its milestones carry no `sinceStartMs`: it did not start in this page.
     */
    adopt(call: BrowserCall, session: { id: string; signal: AbortSignal }): void {
      sessionId = session.id;
      lifetime = session.signal;
      callStartedAt = undefined;
      stopped = false;
      dispatch({ type: 'call_recovered', call });
    },
    waitForEnd,
    /**
     * After the session ended (disconnect()): reads until the service proves that no call of this page runs,
     * for at most `ms`. spec 3.2: ending the session is not that proof. A known call is read until a read
     * says it is over. A lost request's call is looked for in the user's current session: named there, it is
     * read until it ends; absent, none runs, and none can start on a session that ended.
     * @returns true once proven; false when a read failed or the call still runs (busy stays true).
     */
    async proveEnded(ms: number): Promise<boolean> {
      if (!slice.busy) return true;
      if (slice.attempt?.phase === 'outcome_unknown') {
        const current = await backend.getCurrentSession({ signal: new AbortController().signal }).catch(() => undefined);
        if (!current) return false;
        const { call } = current;
        if (!call || call.sessionId !== sessionId || milestones.seen(call.id)) {
          dispatch({ type: 'attempt_abandoned' });
          return true;
        }
        found(call);
      }
      const call = slice.call;
      if (!slice.busy || !call || slice.attempt?.phase === 'creating') return !slice.busy;
      if (!poller || poller.stopped) run({ type: 'start_polling', callId: call.id });
      poller?.pollNow();
      return waitForEnd(ms);
    },
    /** Stops every timer and read; a held INVITE is refused. */
    stop(): void {
      stopped = true;
      poller?.stop();
      poller = undefined;
      settleHeldInvite(undefined);
      for (const wake of endWaiters) wake();
      endWaiters.clear();
    },
  };
}
