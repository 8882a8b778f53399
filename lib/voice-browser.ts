import type { CallControl, createCallControl } from './call-control.js';
import { createConnectionControl } from './connection-control.js';
import { toVoiceError, VoiceBrowserError } from './errors.js';
import { setMuted } from './in-call-controls.js';
import { createRuntime, type VoiceBrowserInternals } from './runtime.js';
import { RENEWABLE_CONNECTIONS, type BrowserCall, type CallInput, type PreflightReport, type VoiceBrowserOptions, type VoiceBrowserStatus } from './types.js';


/**
 * `createVoiceBrowser`: the helper a page uses to take browser calls placed by its server.
 * This file is its public face: the methods, and which of them may run now (a second connect() joins the
 * first). What they do is in connection-control.ts and call-control.ts; runtime.ts owns the state.
 */

/** The helper's methods. Each failure rejects with a {@link VoiceBrowserError} and is also shown in `status().error`. */
export interface VoiceBrowser {
  /**
   * On a fresh helper (after a reload), reads the user's current session and call. A session found sets
   * `connection` to `recovery_required`: its call is shown and polled, and `hangup()` and `disconnect()` clean
   * up; audio and credentials are not restored, and `connect()` is refused until `disconnect()`.
   */
  recover(): Promise<VoiceBrowserStatus>;
  /** Creates a browser session, loads SIP.js and registers; resolves when `connection` is `ready`. */
  connect(): Promise<void>;
  /**
   * Hangs up, waits for a terminal read, unregisters, releases the microphone and ends the session; `busy`
   * turns false only when a read after that end proves no call of the session runs. Unproven, it
   * rejects `cleanup_unknown` with `busy` still true: call it again, or `recover()` in a later page.
   */
  disconnect(): Promise<void>;
  /**
   * Asks the server to place a call; resolves with the admitted call (`202`: not yet an answer).
   * Retrying after `call_outcome_unknown` with the same `idempotencyKey` and input returns the original call.
   */
  startCall(input: CallInput, options: { idempotencyKey: string }): Promise<BrowserCall>;
  /** Asks the service to end the call; `busy` stays true until a terminal read. */
  hangup(): Promise<void>;
  /** Mutes (true) or unmutes the outgoing audio; the far end keeps sending, and you keep hearing it. */
  mute(muted: boolean): void;
  /** Sends one DTMF digit (`0-9 * # A-D`) on the answered call: RFC 4733 when negotiated, else SIP INFO. */
  sendDtmf(digit: string): Promise<void>;
  /** Replaces the session with a new one (fresh credentials and expiry); only while idle. */
  renew(): Promise<void>;
  /** Plays the call's audio after the browser blocked it (`audio_playback_blocked`); call it from a click. */
  resumeAudio(): Promise<void>;
  /** The current status snapshot (deeply frozen). */
  status(): VoiceBrowserStatus;
  /**
   * On a fresh helper (before `connect()`), tests the setup in under 10 s: the microphone, the connection to
   * the voice service, and the audio of a short call to `call.to` (the simulator's `+12025550100` echoes), each
   * `ok`, `warning` or `failed` with its figures and advice. It runs on a session and call of its own, which it
   * ends before resolving: nothing is left (session, call, socket, timer, microphone), and this helper's status
   * does not change. `connect()` and `recover()` called meanwhile wait for it; a second `preflight()` joins it.
   */
  preflight(call: CallInput): Promise<PreflightReport>;
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
 * The test seams: the runtime's (a fake clock, a fake SIP link), and the call operations handed in, so that a
 * test's fake clock never waits on the SIP chunk's download. Not published (`stripInternal`).
 * @internal
 */
export interface HelperInternals extends VoiceBrowserInternals {
  createCallControl?: typeof createCallControl;
}

/**
 * {@link createVoiceBrowser} over the test seams. One closure past 40 lines: the methods, each a few lines,
 * share the operations in flight.
 * @internal
 */
export function createVoiceBrowserWith(options: VoiceBrowserOptions, internals: HelperInternals): VoiceBrowser {
  const rt = createRuntime(options, internals);
  const lines = createConnectionControl(rt);
  /** The SIP chunk: SIP.js, and startCall() and preflight(), which act with it. connect() loads it. */
  const sip = () => import('./sip-adapter.js');
  let calls: CallControl | undefined;
  const loadCalls = async () => (calls ??= (internals.createCallControl ?? (await sip()).createCallControl)(rt));
  /** Runs a call operation: loaded by connect(); called before it, loaded then, to be refused as it always was. */
  const withCalls = <T>(run: (loaded: CallControl) => Promise<T>): Promise<T> => (calls ? run(calls) : loadCalls().then(run));
  const connection = () => rt.connectionState.connection;
  /** The operation of each kind in flight: a second call joins it. */
  let connecting: Promise<void> | undefined;
  let renewing: Promise<void> | undefined;
  let disconnecting: Promise<void> | undefined;
  let recovering: Promise<VoiceBrowserStatus> | undefined;
  let testing: Promise<PreflightReport> | undefined;
  /** Before connect(): nothing held, nothing being found. */
  const fresh = () => connection() === 'disconnected' && !rt.status().session && !rt.callState.busy && !recovering;

  const helper: VoiceBrowser = {
    recover() {
      if (recovering) return recovering;
      // A preflight's own session would be found: recover() looks after it is gone.
      if (testing) return testing.then(() => helper.recover());
      if (!fresh()) {
        return rt.fail(new VoiceBrowserError('browser_session_unavailable', 'recover() is for a fresh helper, before connect(); this one already holds a session'));
      }
      recovering = lines.recover().finally(() => (recovering = undefined));
      return recovering;
    },
    connect() {
      if (connection() === 'ready') return Promise.resolve();
      if (connecting) return connecting;
      if (testing) return testing.then(() => helper.connect());
      if (connection() === 'recovery_required') {
        return rt.fail(new VoiceBrowserError('browser_session_unavailable', 'a session from before the reload exists; disconnect() cleans it up, then connect()'));
      }
      // recover() decides whether there is a session to clean up first: connect() follows its answer.
      if (recovering) return recovering.then(() => helper.connect());
      if (rt.callState.busy) {
        return rt.fail(new VoiceBrowserError('cleanup_unknown', 'a call of the last session was not proven ended; disconnect() again before connect()'));
      }
      const { session } = rt.connectionState;
      if (connection() !== 'disconnected' || session) {
        return rt.fail(new VoiceBrowserError('browser_session_unavailable', `connect() while ${connection()}${session ? ' with a session to clean up: disconnect() first' : ''}`));
      }
      connecting = lines
        .connect()
        .then(loadCalls)
        .then(() => undefined)
        .finally(() => (connecting = undefined));
      return connecting;
    },
    disconnect() {
      if (disconnecting) return disconnecting;
      if (connection() === 'disconnected' && !rt.connectionState.session && !rt.callState.busy && !connecting) return Promise.resolve();
      // A connect() or renew() in flight finishes first: its session is then the one ended.
      disconnecting = Promise.allSettled([connecting, renewing])
        .then(lines.disconnect)
        .finally(() => (disconnecting = undefined));
      return disconnecting;
    },
    startCall: (input, callOptions) => withCalls((loaded) => loaded.startCall(input, callOptions)),
    hangup: rt.hangup,
    mute(muted) {
      try {
        rt.show({ muted: setMuted(rt.link, muted) });
      } catch (error) {
        rt.show({ error: toVoiceError(error, 'invalid_argument', 'mute() failed').toStatus() });
        throw error;
      }
    },
    sendDtmf: (digit) => withCalls((loaded) => loaded.sendDtmf(digit)),
    renew() {
      if (renewing) return renewing;
      if (rt.callState.busy) return rt.fail(new VoiceBrowserError('browser_agent_busy', 'renew() only while idle: wait until busy is false'));
      if (!RENEWABLE_CONNECTIONS.has(connection())) return rt.fail(new VoiceBrowserError('browser_session_unavailable', `renew() while ${connection()}; connect() first`));
      renewing = lines.renew().finally(() => (renewing = undefined));
      return renewing;
    },
    async resumeAudio() {
      await rt.link?.resumeAudio();
    },
    status: () => rt.status(),
    preflight(call) {
      if (testing) return testing;
      if (!fresh()) return rt.fail(new VoiceBrowserError('browser_session_unavailable', 'preflight() is for a fresh helper, before connect()'));
      testing = sip()
        .then((chunk) => chunk.runPreflight(call, { helper: (report) => createVoiceBrowserWith({ ...options, ...report, remoteAudio: undefined }, internals), clock: rt.clock, microphoneId: options.audioDevices?.microphoneId }))
        .catch((error: unknown) => rt.fail(toVoiceError(error, 'connection_failed', 'preflight() could not load its SIP part')))
        .finally(() => (testing = undefined));
      return testing;
    },
  };
  return helper;
}
