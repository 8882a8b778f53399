import { idleCall, isTerminal, transition, type CallEffect, type CallEvent, type CallSlice } from './call-machine.js';
import { systemClock, type Clock } from './clock.js';
import { toVoiceError, VoiceBrowserError } from './errors.js';
import { createPoller, type Poller } from './poller.js';
import type { IncomingInvite, SipEvents, SipLink, SipLinkOptions } from './sip-adapter.js';
import type { BrowserCall, CallInput, SessionTransport, TimingEvent, VoiceBrowserOptions, VoiceBrowserStatus } from './types.js';

/**
 * `createVoiceBrowser` (spec 4.9): the helper a page uses to take browser calls placed by its server.
 */

/** The helper's methods. Each failure rejects with a {@link VoiceBrowserError} and is also shown in `status().error`. */
export interface VoiceBrowser {
  /** Creates a browser session, loads SIP.js and registers; resolves when `connection` is `ready`. */
  connect(): Promise<void>;
  /**
   * Asks the server to place a call; resolves with the admitted call (`202`: not yet an answer, spec 3.2).
   * Retrying after `call_outcome_unknown` with the same `idempotencyKey` returns the original call.
   */
  startCall(input: CallInput, options: { idempotencyKey: string }): Promise<BrowserCall>;
  /** Asks the service to end the call; `busy` stays true until a terminal read (spec 3.2). */
  hangup(): Promise<void>;
  /** Hangs up, waits for the call to end, ends the session and unregisters. */
  disconnect(): Promise<void>;
  /** The current status snapshot. */
  status(): VoiceBrowserStatus;
}

/** Test seams: a fake clock and a fake SIP link instead of the real ones. @internal */
export interface VoiceBrowserInternals {
  clock?: Clock;
  openSipLink?: (options: SipLinkOptions) => Promise<SipLink>;
}

const E164 = /^\+[1-9]\d{1,14}$/;
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,128}$/;
const END_WAIT_MS = 15_000;

const initialStatus: VoiceBrowserStatus = Object.freeze({
  connection: 'disconnected',
  session: null,
  call: null,
  attempt: null,
  busy: false,
  audio: 'none',
  error: null,
});

/** An answer came back and said no: nothing was created (spec 7). Anything else leaves the outcome unknown. */
function isDefiniteRejection(error: VoiceBrowserError): boolean {
  const status = error.status ?? 0;
  return status >= 400 && status < 500 && status !== 408 && error.code !== 'idempotency_in_progress';
}

/**
 * Creates the helper. Importing the library touches no browser global; this does not either until
 * `connect()` runs.
 *
 * @example
 * ```ts
 * import { createVoiceBrowser, createFetchBackend } from 'voice-browser';
 *
 * const voice = createVoiceBrowser({
 *   backend: createFetchBackend(),
 *   remoteAudio: document.querySelector('audio')!,
 *   onStatus: (status) => render(status),
 * });
 * await voice.connect();
 * await voice.startCall({ from: '+12025550199', to: '+12025550100' }, { idempotencyKey: crypto.randomUUID() });
 * ```
 */
export function createVoiceBrowser(options: VoiceBrowserOptions & VoiceBrowserInternals): VoiceBrowser {
  const { backend } = options;
  const clock = options.clock ?? systemClock;
  let status = initialStatus;
  let slice: CallSlice = idleCall;
  let link: SipLink | undefined;
  let poller: Poller | undefined;
  let heldInvite: IncomingInvite | undefined;
  let hangupWanted = false;
  let connecting: Promise<void> | undefined;
  let starting: { key: string; promise: Promise<BrowserCall> } | undefined;
  let lifetime = new AbortController();
  let connectStartedAt = 0;
  let callStartedAt = 0;
  const callEndWaiters = new Set<() => void>();
  const reported = new Set<string>();

  /** The one place status changes: commit, then notify (STYLE: SIP.js `stateTransition`). */
  function commit(patch: Partial<VoiceBrowserStatus>): void {
    status = Object.freeze({ ...status, ...patch });
    options.onStatus?.(status);
  }

  function timing(name: TimingEvent['name'], startedAt: number, callId?: string): void {
    const at = clock.now();
    options.onTiming?.({ name, at, sinceStartMs: at - startedAt, ...(callId ? { callId } : {}) });
  }

  /** Once per call and milestone: reads and SIP events may both report the same moment. */
  function callTiming(name: TimingEvent['name'], callId: string | undefined): void {
    if (!callId || reported.has(`${callId}:${name}`)) return;
    reported.add(`${callId}:${name}`);
    timing(name, callStartedAt, callId);
  }

  function dispatch(event: CallEvent): void {
    const [next, effects] = transition(slice, event);
    slice = next;
    commit({ attempt: next.attempt, call: next.call, busy: next.busy, error: next.error });
    if (next.call?.state === 'connected') callTiming('connected', next.call.id);
    for (const effect of effects) run(effect);
  }

  function run(effect: CallEffect): void {
    switch (effect.type) {
      case 'start_polling':
        poller?.stop();
        poller = createPoller({
          clock,
          read: (signal) => backend.getCall(effect.callId, { signal }).then((r) => r.call),
          isTerminal,
          onRead: (call) => dispatch({ type: 'call_read', call }),
          // A failed read changes nothing: the next tick reads again (reads are safe to repeat).
          onError: () => undefined,
        });
        return;
      case 'stop_polling':
        poller?.stop();
        poller = undefined;
        return;
      case 'call_ended':
        callTiming('ended', effect.call.id);
        // The service says both legs are down; make sure our half of the dialog is too.
        link?.endSession();
        if (status.audio !== 'none') commit({ audio: 'ended' });
        for (const wake of callEndWaiters) wake();
        callEndWaiters.clear();
        return;
    }
  }

  function answer(invite: IncomingInvite): void {
    heldInvite = undefined;
    callTiming('invite_received', invite.callId);
    commit({ audio: 'connecting' });
    invite.accept().then(
      () => poller?.pollNow(),
      (error: unknown) => {
        // SIP.js has already declined the INVITE; the service will end the call and a read will show it.
        commit({ error: toVoiceError(error, 'connection_failed', 'the call could not be answered').toStatus() });
        poller?.pollNow();
      },
    );
  }

  /** The INVITE held while the call had no id: answered if it is this call's, rejected otherwise (DESIGN.md). */
  function settleHeldInvite(callId: string | undefined): void {
    const invite = heldInvite;
    heldInvite = undefined;
    if (!invite) return;
    if (callId !== undefined && invite.callId === callId) answer(invite);
    else invite.reject();
  }

  const sipEvents: SipEvents = {
    onInvite(invite) {
      const attempt = slice.attempt;
      // Only our own call's INVITE is answered (DESIGN.md); it may come before the 202 does.
      if (attempt && invite.callId && slice.call?.id === invite.callId) return answer(invite);
      if (attempt && invite.callId && (attempt.phase === 'creating' || attempt.phase === 'outcome_unknown')) {
        heldInvite?.reject();
        heldInvite = invite;
        return;
      }
      invite.reject();
    },
    onSessionEnded: () => poller?.pollNow(),
    onMediaConnected: (callId) => callTiming('media_connected', callId),
    onAudio: (audio) =>
      commit(
        audio === 'blocked'
          ? { audio, error: { code: 'audio_playback_blocked', message: 'the browser blocked audio playback; click to resume it' } }
          : { audio },
      ),
    onDisconnected: (error) => {
      link = undefined;
      commit({ connection: 'disconnected', session: null, error: error.toStatus() });
    },
  };

  async function openLink(transport: SessionTransport): Promise<SipLink> {
    const open = options.openSipLink ?? (await import('./sip-adapter.js')).openSipLink;
    return open({ transport, remoteAudio: options.remoteAudio, audioDevices: options.audioDevices, events: sipEvents });
  }

  async function doConnect(): Promise<void> {
    connectStartedAt = clock.now();
    lifetime = new AbortController();
    commit({ connection: 'connecting', error: null });
    let sessionId: string | undefined;
    try {
      const { session, transport } = await backend.createSession({ signal: lifetime.signal });
      sessionId = session.id;
      timing('session_created', connectStartedAt);
      commit({ session: { id: session.id, expiresAt: session.expiresAt } });
      link = await openLink(transport);
      timing('registered', connectStartedAt);
      commit({ connection: 'ready' });
    } catch (cause) {
      const error = toVoiceError(cause, 'connection_failed', 'could not connect to the voice service');
      // Leave nothing half-made: a session we created but could not register is ended again.
      if (sessionId) await backend.endSession(sessionId, { signal: new AbortController().signal }).catch(() => undefined);
      commit({ connection: 'disconnected', session: null, error: error.toStatus() });
      throw error;
    }
  }

  async function doStartCall(input: CallInput, key: string): Promise<BrowserCall> {
    const sessionId = status.session?.id;
    if (status.connection !== 'ready' || !sessionId) {
      throw new VoiceBrowserError('browser_session_unavailable', 'startCall() before connect() finished; wait for connection "ready"');
    }
    callStartedAt = clock.now();
    hangupWanted = false;
    dispatch({ type: 'attempt_started', idempotencyKey: key, input });
    try {
      const { call } = await backend.createCall({ ...input, sessionId }, { idempotencyKey: key, signal: lifetime.signal });
      dispatch({ type: 'attempt_admitted', call });
      callTiming('call_admitted', call.id);
      settleHeldInvite(call.id);
      if (hangupWanted) void hangup().catch(() => undefined);
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

  function startCall(input: CallInput, callOptions: { idempotencyKey: string }): Promise<BrowserCall> {
    const key = callOptions?.idempotencyKey;
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key) || key.trim() === '') {
      return Promise.reject(new VoiceBrowserError('invalid_argument', 'idempotencyKey must be 1-128 printable ASCII characters, new for each new call'));
    }
    if (!input || !E164.test(input.from) || !E164.test(input.to)) {
      return Promise.reject(new VoiceBrowserError('invalid_argument', 'from and to must be E.164 numbers such as +12025550100'));
    }
    // A double click with the same key joins the request in flight: one intent, one call.
    if (starting?.key === key) return starting.promise;
    const retry = slice.attempt?.idempotencyKey === key && slice.attempt.phase === 'outcome_unknown';
    if (slice.busy && !retry) {
      return Promise.reject(new VoiceBrowserError('browser_agent_busy', 'a call is still active; wait until busy is false or hang up'));
    }
    const promise = doStartCall(input, key).finally(() => {
      if (starting?.promise === promise) starting = undefined;
    });
    starting = { key, promise };
    return promise;
  }

  async function hangup(): Promise<void> {
    const call = slice.call;
    if (!call) {
      // No id yet (createCall in flight): hang up as soon as the service names the call.
      if (slice.attempt?.phase === 'creating') hangupWanted = true;
      return;
    }
    if (isTerminal(call)) return;
    try {
      const { call: after } = await backend.hangupCall(call.id, { signal: lifetime.signal });
      dispatch({ type: 'call_read', call: after });
    } catch (cause) {
      // The service did not take the hangup: end our leg by SIP BYE, which ends the call too.
      link?.endSession();
      const error = toVoiceError(cause, 'cleanup_unknown', 'the hangup request failed');
      commit({ error: error.toStatus() });
      throw error;
    } finally {
      poller?.pollNow();
    }
  }

  function waitForCallEnd(): Promise<void> {
    if (!slice.busy) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = clock.setTimeout(resolve, END_WAIT_MS);
      callEndWaiters.add(() => {
        clock.clearTimeout(timer);
        resolve();
      });
    });
  }

  async function disconnect(): Promise<void> {
    if (status.connection === 'disconnected' && !status.session) return;
    const sessionId = status.session?.id;
    commit({ connection: 'disconnecting' });
    let failure: VoiceBrowserError | undefined;
    if (slice.busy) {
      await hangup().catch((error: unknown) => (failure = toVoiceError(error, 'cleanup_unknown', 'hangup failed')));
      await waitForCallEnd();
    }
    poller?.stop();
    poller = undefined;
    await link?.close();
    link = undefined;
    if (sessionId) {
      await backend.endSession(sessionId, { signal: new AbortController().signal }).catch((error: unknown) => {
        failure = new VoiceBrowserError('cleanup_unknown', 'ending the session failed; call disconnect() again', { cause: error });
      });
    }
    lifetime.abort();
    commit({ connection: 'disconnected', session: failure ? status.session : null, error: failure?.toStatus() ?? null });
    if (failure) throw failure;
  }

  return {
    connect() {
      if (status.connection === 'ready') return Promise.resolve();
      if (status.connection !== 'disconnected') {
        return connecting ?? Promise.reject(new VoiceBrowserError('browser_session_unavailable', `connect() while ${status.connection}`));
      }
      connecting = doConnect().finally(() => (connecting = undefined));
      return connecting;
    },
    startCall,
    hangup,
    disconnect,
    status: () => status,
  };
}
