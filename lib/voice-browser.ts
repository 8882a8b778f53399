import { createCallControl, type CallSession } from './call-control.js';
import { systemClock, type Clock } from './clock.js';
import { disconnected, transition, type ConnectionEvent, type ConnectionSlice } from './connection-machine.js';
import { isDefiniteRejection, isVoiceBrowserError, toVoiceError, VoiceBrowserError } from './errors.js';
import { sendDigit, setMuted } from './in-call-controls.js';
import type { SipEvents, SipLink, SipLinkOptions } from './sip-adapter.js';
import { createStatusStore } from './status-store.js';
import { RENEWABLE_CONNECTIONS, type BrowserCall, type BrowserSession, type CallInput, type Connection, type SessionTransport, type VoiceBrowserOptions, type VoiceBrowserStatus } from './types.js';

/**
 * `createVoiceBrowser` (spec 4.9): the helper a page uses to take browser calls placed by its server.
 * This file runs the connection (session, SIP link, expiry, renewal, recovery) whose states the pure
 * connection-machine.ts decides; call-control.ts owns calls.
 */

/** The helper's methods. Each failure rejects with a {@link VoiceBrowserError} and is also shown in `status().error`. */
export interface VoiceBrowser {
  /**
   * On a fresh helper (after a reload), reads the user's current session and call. A session found sets
   * `connection` to `recovery_required`: its call is shown and polled, and `hangup()` and `disconnect()` clean
   * up; audio and credentials are not restored, and `connect()` is refused until `disconnect()` (spec 4.9).
   */
  recover(): Promise<VoiceBrowserStatus>;
  /** Creates a browser session, loads SIP.js and registers; resolves when `connection` is `ready`. */
  connect(): Promise<void>;
  /**
   * Hangs up, waits for a terminal read, unregisters, releases the microphone and ends the session; `busy`
   * turns false only when a read after that end proves no call of the session runs (spec 3.2). Unproven, it
   * rejects `cleanup_unknown` with `busy` still true: call it again, or `recover()` in a later page.
   */
  disconnect(): Promise<void>;
  /**
   * Asks the server to place a call; resolves with the admitted call (`202`: not yet an answer, spec 3.2).
   * Retrying after `call_outcome_unknown` with the same `idempotencyKey` and input returns the original call.
   */
  startCall(input: CallInput, options: { idempotencyKey: string }): Promise<BrowserCall>;
  /** Asks the service to end the call; `busy` stays true until a terminal read (spec 3.2). */
  hangup(): Promise<void>;
  /** Mutes (true) or unmutes the outgoing audio; the far end keeps sending, and you keep hearing it. */
  mute(muted: boolean): void;
  /** Sends one DTMF digit (`0-9 * # A-D`) on the answered call: RFC 4733 when negotiated, else SIP INFO. */
  sendDtmf(digit: string): Promise<void>;
  /** Replaces the session with a new one (fresh credentials and expiry); only while idle (spec 4.9). */
  renew(): Promise<void>;
  /** Plays the call's audio after the browser blocked it (`audio_playback_blocked`); call it from a click. */
  resumeAudio(): Promise<void>;
  /** The current status snapshot (deeply frozen). */
  status(): VoiceBrowserStatus;
}

/**
 * Test seams: a fake clock and a fake SIP link instead of the real ones. Not part of the published types
 * (`stripInternal`): pages use {@link createVoiceBrowser}.
 * @internal
 */
export interface VoiceBrowserInternals {
  clock?: Clock;
  openSipLink?: (options: SipLinkOptions) => Promise<SipLink>;
}

/**
 * How long disconnect() waits for a terminal read, for reads to find the call of a lost request, and, once
 * the session ended, for reads to prove that its call ended with it.
 */
const END_WAIT_MS = 15_000;
const UNKNOWN_WAIT_MS = 3_000;
const PROOF_WAIT_MS = 3_000;
/** The longest delay a browser timer takes (2^31 - 1 ms). */
const MAX_TIMER_MS = 2_147_483_647;

const sessionView = (session: BrowserSession) => ({ id: session.id, expiresAt: session.expiresAt });

/** Why no call can start in this connection state, as the error startCall() gives. */
function noCallsNow(connection: Connection): VoiceBrowserError {
  const why: Partial<Record<Connection, string>> = {
    expired: 'the session or its registration expired; renew() it to take calls again',
    offline: 'the SIP connection was lost; renew() to reconnect',
    reconnecting: 'the SIP connection is being restored; try again in a moment',
    recovery_required: 'a session from before the reload must be cleaned up with disconnect() first',
  };
  return new VoiceBrowserError('browser_session_unavailable', why[connection] ?? `startCall() while ${connection}; connect() and wait for "ready"`);
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
export function createVoiceBrowser(options: VoiceBrowserOptions): VoiceBrowser {
  return createVoiceBrowserWith(options, {});
}

/**
 * {@link createVoiceBrowser} over the test seams (a fake clock, a fake SIP link).
 * @internal
 */
export function createVoiceBrowserWith(options: VoiceBrowserOptions, internals: VoiceBrowserInternals): VoiceBrowser {
  const { backend } = options;
  const clock = internals.clock ?? systemClock;
  const store = createStatusStore(options, clock);
  let link: SipLink | undefined;
  /** The link whose events count; events of an older link (before a renewal) are ignored. */
  let linkToken: object | undefined;
  let lifetime = new AbortController();
  let expiryTimer: unknown;
  let connecting: Promise<void> | undefined;
  let renewing: Promise<void> | undefined;
  let disconnecting: Promise<void> | undefined;

  let slice: ConnectionSlice = disconnected;
  const connection = () => slice.connection;

  /** Every connection change goes through here (STYLE: one place to commit): the machine decides, this commits. */
  function move(event: ConnectionEvent): void {
    const [next, effects] = transition(slice, event);
    if (next === slice) return;
    slice = next;
    const reported = effects.find((effect) => effect.type === 'report');
    store.commit({ connection: next.connection, session: next.session, ...(reported ? { error: reported.error } : {}) });
    for (const effect of effects) {
      if (effect.type === 'watch_expiry') watchExpiry(effect.expiresAt);
      if (effect.type === 'stop_expiry') clock.clearTimeout(expiryTimer);
    }
  }
  const fail = (error: VoiceBrowserError): Promise<never> => {
    store.commit({ error: error.toStatus() });
    return Promise.reject(error);
  };
  const detached = () => new AbortController().signal;

  const calls = createCallControl({ backend, clock, store, link: () => link });
  /** Where a new call may start: only `ready` takes calls (spec 3.2). */
  const callSession = (): CallSession =>
    connection() === 'ready' && slice.session ? { id: slice.session.id, signal: lifetime.signal } : noCallsNow(connection());

  function eventsFor(token: object): SipEvents {
    const live = () => token === linkToken;
    return {
      onInvite: (invite) => (live() ? calls.sipEvents.onInvite(invite) : invite.reject()),
      onSessionEnded: (callId) => live() && calls.sipEvents.onSessionEnded(callId),
      onCallChanged: (callId) => live() && calls.sipEvents.onCallChanged(callId),
      onMediaConnected: (callId) => live() && calls.sipEvents.onMediaConnected(callId),
      onMediaFailed: (callId) => live() && calls.sipEvents.onMediaFailed(callId),
      onQuality: (callId, quality) => live() && calls.sipEvents.onQuality(callId, quality),
      onAudio: (audio) => {
        if (!live()) return;
        if (audio === 'blocked') {
          store.commit({ audio, error: { code: 'audio_playback_blocked', message: 'the browser blocked the call audio; click to resume it' } });
        } else {
          store.commit({ audio, ...(store.get().error?.code === 'audio_playback_blocked' ? { error: null } : {}) });
        }
      },
      onReconnecting: () => live() && move({ type: 'socket_dropped' }),
      onReconnected: () => live() && move({ type: 'socket_restored' }),
      onDisconnected: (error) => live() && move({ type: 'link_gone', error: error.toStatus() }),
    };
  }

  async function openLink(transport: SessionTransport): Promise<SipLink> {
    const token = {};
    linkToken = token;
    const open = internals.openSipLink ?? (await import('./sip-adapter.js')).openSipLink;
    return open({ transport, remoteAudio: options.remoteAudio, audioDevices: options.audioDevices, events: eventsFor(token), clock });
  }

  /** spec 3.2: the session's expiry blocks new calls; an accepted call keeps its own limit. */
  function watchExpiry(expiresAt: string): void {
    clock.clearTimeout(expiryTimer);
    const ms = Date.parse(expiresAt) - clock.now();
    if (Number.isNaN(ms)) return;
    expiryTimer = clock.setTimeout(() => {
      expiryTimer = undefined;
      // A far expiry is timed in steps of the longest delay a timer takes.
      if (Date.parse(expiresAt) > clock.now()) return watchExpiry(expiresAt);
      move({ type: 'session_expired', error: { code: 'browser_session_unavailable', message: 'the session expired; renew() it while idle to take calls again' } });
    }, Math.min(Math.max(0, ms), MAX_TIMER_MS));
  }

  /** A new session and its registered link; a session whose registration fails is ended again. */
  async function establish(startedAt: number, onCreated: (session: BrowserSession) => void = () => undefined) {
    const { session, transport } = await backend.createSession({ signal: lifetime.signal });
    store.timing('session_created', startedAt);
    onCreated(session);
    try {
      const opened = await openLink(transport);
      store.timing('registered', startedAt);
      return { session, link: opened };
    } catch (cause) {
      linkToken = undefined;
      await backend.endSession(session.id, { signal: detached() }).catch(() => undefined);
      throw toVoiceError(cause, 'connection_failed', 'could not register with the voice service');
    }
  }

  async function doConnect(): Promise<void> {
    const startedAt = clock.now();
    lifetime = new AbortController();
    move({ type: 'connect_started' });
    try {
      const made = await establish(startedAt, (session) => move({ type: 'session_created', session: sessionView(session) }));
      link = made.link;
      move({ type: 'registered', session: sessionView(made.session) });
    } catch (cause) {
      const error = toVoiceError(cause, 'connection_failed', 'could not connect to the voice service');
      move({ type: 'connect_failed', error: error.toStatus() });
      throw error;
    }
  }

  async function doRenew(): Promise<void> {
    const startedAt = clock.now();
    const old = { link, sessionId: slice.session?.id };
    move({ type: 'renew_started' });
    let sessionCreated = false;
    try {
      const made = await establish(startedAt, () => (sessionCreated = true));
      link = made.link;
      move({ type: 'registered', session: sessionView(made.session) });
    } catch (cause) {
      const error = toVoiceError(cause, 'connection_failed', 'renewing the session failed');
      move({ type: 'renew_failed', error: error.toStatus(), sessionCreated });
      throw error;
    }
    // The old session is superseded: its link closes and the service is told it is over.
    await old.link?.close();
    if (old.sessionId) await backend.endSession(old.sessionId, { signal: detached() }).catch(() => undefined);
  }

  /** Waits for the call to end: a lost request first gets a few seconds of reads to find its call. */
  async function settleCall(): Promise<void> {
    if (calls.outcomeUnknown) await calls.waitForEnd(UNKNOWN_WAIT_MS);
    if (calls.busy && !calls.outcomeUnknown) await calls.waitForEnd(END_WAIT_MS);
  }

  async function doDisconnect(): Promise<void> {
    await Promise.allSettled([connecting, renewing]);
    const sessionId = slice.session?.id;
    move({ type: 'disconnect_started' });
    let hangupFailure: VoiceBrowserError | undefined;
    if (calls.busy && sessionId) {
      await calls.hangup().catch((error: unknown) => (hangupFailure = toVoiceError(error, 'cleanup_unknown', 'hangup failed')));
      await settleCall();
    }
    linkToken = undefined;
    await link?.close();
    link = undefined;
    let endFailure: VoiceBrowserError | undefined;
    if (sessionId) {
      await backend.endSession(sessionId, { signal: detached() }).catch(
        (cause: unknown) => (endFailure = new VoiceBrowserError('cleanup_unknown', 'ending the session failed; call disconnect() again', { cause })),
      );
    }
    // spec 3.2: ending the session is no proof that its call stopped; only a read after the end is.
    const proven = endFailure ? !calls.busy : await calls.proveEnded(PROOF_WAIT_MS);
    calls.stop();
    lifetime.abort();
    const failure =
      endFailure ??
      (proven ? undefined : new VoiceBrowserError('cleanup_unknown', 'the call was not confirmed ended; call disconnect() again, or recover() in a later page', { cause: hangupFailure }));
    move({ type: 'disconnect_finished', sessionKept: endFailure !== undefined, error: failure ? failure.toStatus() : null });
    if (failure) throw failure;
  }

  async function doRecover(): Promise<VoiceBrowserStatus> {
    if (lifetime.signal.aborted) lifetime = new AbortController();
    let found: { session: BrowserSession | null; call: BrowserCall | null };
    try {
      found = await backend.getCurrentSession({ signal: lifetime.signal });
    } catch (cause) {
      return fail(toVoiceError(cause, 'browser_voice_unavailable', 'could not read the current session; try recover() again'));
    }
    if (!found.session) return store.get();
    move({ type: 'recovered', session: sessionView(found.session) });
    if (found.call && found.call.sessionId === found.session.id) calls.adopt(found.call, { id: found.session.id, signal: lifetime.signal });
    return store.get();
  }

  let recovering: Promise<VoiceBrowserStatus> | undefined;

  const helper: VoiceBrowser = {
    recover() {
      if (recovering) return recovering;
      const { session } = store.get();
      if (connection() !== 'disconnected' || session || calls.busy) {
        return fail(new VoiceBrowserError('browser_session_unavailable', 'recover() is for a fresh helper, before connect(); this one already holds a session'));
      }
      recovering = doRecover().finally(() => (recovering = undefined));
      return recovering;
    },
    connect() {
      if (connection() === 'ready') return Promise.resolve();
      if (connecting) return connecting;
      if (connection() === 'recovery_required') {
        return fail(new VoiceBrowserError('browser_session_unavailable', 'a session from before the reload exists; disconnect() cleans it up, then connect() (spec 4.9)'));
      }
      // recover() decides whether there is a session to clean up first: connect() follows its answer.
      if (recovering) return recovering.then(() => helper.connect());
      if (calls.busy) {
        return fail(new VoiceBrowserError('cleanup_unknown', 'a call of the last session was not proven ended; disconnect() again before connect()'));
      }
      if (connection() !== 'disconnected' || slice.session) {
        return fail(new VoiceBrowserError('browser_session_unavailable', `connect() while ${connection()}${slice.session ? ' with a session to clean up: disconnect() first' : ''}`));
      }
      connecting = doConnect().finally(() => (connecting = undefined));
      return connecting;
    },
    disconnect() {
      if (disconnecting) return disconnecting;
      if (connection() === 'disconnected' && !slice.session && !calls.busy && !connecting) return Promise.resolve();
      disconnecting = doDisconnect().finally(() => (disconnecting = undefined));
      return disconnecting;
    },
    startCall(input, callOptions) {
      return calls.startCall(input, callOptions, callSession()).catch((error: unknown) => {
        // The service knows first when a session lapsed early (revoked, expired at its clock): its definite
        // refusal of a call for the session stops the page offering calls (spec 7).
        if (isVoiceBrowserError(error) && error.code === 'browser_session_unavailable' && isDefiniteRejection(error)) {
          move({ type: 'session_refused', error: error.toStatus() });
        }
        throw error;
      });
    },
    hangup: calls.hangup,
    mute(muted) {
      try {
        store.commit({ muted: setMuted(link, muted) });
      } catch (error) {
        store.commit({ error: toVoiceError(error, 'invalid_argument', 'mute() failed').toStatus() });
        throw error;
      }
    },
    sendDtmf: (digit) => sendDigit(link, calls.answered, digit).catch((error: unknown) => fail(toVoiceError(error, 'dtmf_outcome_unknown', 'sendDtmf() failed'))),
    renew() {
      if (renewing) return renewing;
      if (calls.busy) return fail(new VoiceBrowserError('browser_agent_busy', 'renew() only while idle (spec 4.9); wait until busy is false'));
      if (!RENEWABLE_CONNECTIONS.has(connection())) return fail(new VoiceBrowserError('browser_session_unavailable', `renew() while ${connection()}; connect() first`));
      renewing = doRenew().finally(() => (renewing = undefined));
      return renewing;
    },
    async resumeAudio() {
      await link?.resumeAudio();
    },
    status: () => store.get(),
  };
  return helper;
}
