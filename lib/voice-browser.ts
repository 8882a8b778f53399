import type { CallControl } from './api/calls/call-control.js';
import type { Clock } from './core/clock.js';
import { systemClock } from './platform/web/system-clock.js';
import { disconnect, recover } from './api/session/connection-control.js';
import { toVoiceError, VoiceBrowserError } from './core/errors.js';
import { setMuted } from './api/calls/in-call-controls.js';
import { createRuntime } from './runtime/runtime.js';
import type { LinkParts } from './runtime/runtime-types.js';
import type { SessionSetup } from './api/session/session-setup.js';
import { createSharedTabs } from './api/tabs/shared-tabs.js';
import type { createCloseProtection } from './api/session/close-protection.js';
import type { createCallControl } from './api/calls/call-control.js';
import type { createOfferRinger } from './platform/web/media/offer-ringer.js';
import type { runPreflight } from './api/preflight/preflight.js';
import type { watchQueueStream } from './platform/web/queue-watch.js';
import type { createSessionSetup } from './api/session/session-setup.js';
import { canConnect, canRenew } from './core/status-rules.js';
import { browserTabs } from './platform/web/tab-environment.js';
import type { Phone, TabEnvironment } from './runtime/tab-ports.js';
import type { PreflightReport, VoiceBrowser, VoiceBrowserOptions } from './core/helper-types.js';
import type { VoiceBrowserStatus } from './core/types.js';


/**
 * `createVoiceBrowser`: the helper a page uses to take browser calls placed by its server.
 * This file is its public face: the methods, and which of them may run now (by the rules of status-rules.ts;
 * a second connect() joins the first). What they do is in connection-control.ts and call-control.ts; runtime.ts owns the state.
 */

/**
 * Creates the helper. Importing the library touches no browser global. With `tabs: 'shared'` (the default),
 * creating it joins the origin's other tabs (Web Locks, BroadcastChannel); otherwise nothing is touched until
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

/** The operations of the SIP chunk, over one runtime. */
interface SipOperations {
  setup: SessionSetup;
  calls: CallControl;
}

/**
 * What the SIP chunk (loaded on the first connect()) brings: SIP.js's link, and every part that acts only with
 * one (the runtime's `LinkParts` are some of them). Written out here rather than read from the chunk's entry, so
 * that the factory stays one level above the operations; the compiler checks the chunk against it.
 * @internal
 */
export interface SipParts extends LinkParts {
  createCallControl: typeof createCallControl;
  createCloseProtection: typeof createCloseProtection;
  createOfferRinger: typeof createOfferRinger;
  runPreflight: typeof runPreflight;
  watchQueueStream: typeof watchQueueStream;
  createSessionSetup: typeof createSessionSetup;
}

/**
 * The test seams: a fake clock, the SIP chunk's parts handed in (a fake link among them), so that a test's fake
 * clock never waits on the chunk's download, and the tabs. Not published (`stripInternal`).
 * @internal
 */
export interface HelperInternals {
  clock?: Clock;
  sipParts?: SipParts;
  /** The tabs a shared helper meets (null: none, as where the browser lacks them); default the browser's. */
  tabs?: TabEnvironment | null;
}

/**
 * {@link createVoiceBrowser} over the test seams: one tab among shared ones (shared-tabs.ts), or a phone of its own.
 * @internal
 */
export function createVoiceBrowserWith(options: VoiceBrowserOptions, internals: HelperInternals): VoiceBrowser {
  const tabs = options.tabs === 'independent' ? undefined : internals.tabs === undefined ? browserTabs() : internals.tabs;
  const phone = tabs ? createSharedTabs(options, tabs, (leading) => createHelper(leading, internals, tabs.page)) : createHelper(options, internals, pageOf());
  const voice = phone as VoiceBrowser;
  // Every tab watches the queues itself: the stream only reads, so it needs no leader.
  voice.watchQueues = (listener) => {
    const url = options.backend.queueEventsUrl;
    if (!url) throw new VoiceBrowserError('invalid_argument', 'watchQueues() needs a backend with queueEventsUrl');
    const watching = sipOf(internals)().then((chunk) => chunk.watchQueueStream(url, listener, internals.clock ?? systemClock));
    return () => void watching.then((stop) => stop());
  };
  return voice;
}

/** The SIP chunk: SIP.js, and the parts that act with it, in one download on first use (connect()). */
const sipOf = (internals: HelperInternals) => (): Promise<SipParts> => (internals.sipParts ? Promise.resolve(internals.sipParts) : import('./connect.js').then((chunk) => chunk.parts));

/** The page where one is (its `beforeunload`), for `closeProtection`. */
const pageOf = (): EventTarget | undefined => (typeof globalThis.addEventListener === 'function' ? globalThis : undefined);

/**
 * The helper that holds a phone: a tab's own, or the shared tabs' leader's. One closure past 40 lines: the
 * methods, each a few lines, share the operations in flight.
 */
function createHelper(given: VoiceBrowserOptions, internals: HelperInternals, page: EventTarget | undefined): Phone {
  /**
   * closeProtection's and the offer ringer's watches of the status: they matter only once a call can hold audio
   * or an offer ring, so they come with SIP.js.
   */
  let guard: ((status: VoiceBrowserStatus) => void) | undefined;
  let ring: ((status: VoiceBrowserStatus) => void) | undefined;
  const options: VoiceBrowserOptions = {
    ...given,
    onStatus(status) {
      guard?.(status);
      ring?.(status);
      given.onStatus?.(status);
    },
  };
  const sip = sipOf(internals);
  const rt = createRuntime(options, { clock: internals.clock ?? systemClock, linkParts: sip });
  let loaded: SipOperations | undefined;
  const load = async (): Promise<SipOperations> => {
    const parts = await sip();
    if (given.closeProtection !== false) guard ??= parts.createCloseProtection(page);
    loaded ??= { setup: parts.createSessionSetup(rt), calls: parts.createCallControl(rt) };
    ring ??= parts.createOfferRinger({ clock: rt.clock, backend: rt.backend, dispatch: rt.dispatch, signal: rt.signal, setAvailability: loaded.calls.setAvailability }, options);
    return loaded;
  };
  /** A failed download of the SIP chunk rejects the operation that needed it `connection_failed`. */
  const unloaded = (error: unknown) => rt.refuse(toVoiceError(error, 'connection_failed', 'could not load the SIP part of the helper'));
  /** Runs an operation of the SIP chunk, loaded on first use. */
  const withSip = <T>(run: (operations: SipOperations) => Promise<T>): Promise<T> => (loaded ? run(loaded) : load().then(run, unloaded));
  /** recover() and preflight() are for a helper that holds nothing yet. */
  const notFresh = (method: string) => rt.refuse(new VoiceBrowserError('browser_session_unavailable', `${method}() is for a fresh helper, before connect()`));
  /** The operation of each kind in flight: a second call joins it. */
  let connecting: Promise<void> | undefined;
  let renewing: Promise<void> | undefined;
  let disconnecting: Promise<void> | undefined;
  let recovering: Promise<VoiceBrowserStatus> | undefined;
  let testing: Promise<PreflightReport> | undefined;
  /** Nothing held (what connect() needs) and nothing being found or connected. */
  const fresh = () => canConnect(rt.status()) && !recovering && !connecting;

  const helper: Phone = {
    recover() {
      if (recovering) return recovering;
      // A preflight's own session would be found: recover() looks after it is gone.
      if (testing) return testing.then(() => helper.recover());
      if (!fresh()) return notFresh('recover');
      recovering = recover(rt).finally(() => (recovering = undefined));
      return recovering;
    },
    connect() {
      const status = rt.status();
      if (status.connection === 'ready') return Promise.resolve();
      if (connecting) return connecting;
      if (testing) return testing.then(() => helper.connect());
      if (status.connection === 'recovery_required') {
        return rt.refuse(new VoiceBrowserError('browser_session_unavailable', 'a session from before the reload must be cleaned up with disconnect() first'));
      }
      // recover() decides whether there is a session to clean up first: connect() follows its answer.
      if (recovering) return recovering.then(() => helper.connect());
      if (!canConnect(status)) {
        return rt.refuse(
          status.busy
            ? new VoiceBrowserError('cleanup_unknown', 'a call of the last session was not proven ended; disconnect() again before connect()')
            : new VoiceBrowserError('browser_session_unavailable', `connect() while ${status.connection}${status.session ? ' with a session to clean up: disconnect() first' : ''}`),
        );
      }
      connecting = withSip(({ setup }) => setup.connect()).finally(() => (connecting = undefined));
      return connecting;
    },
    disconnect() {
      if (disconnecting) return disconnecting;
      // Nothing held: nothing to end.
      if (canConnect(rt.status()) && !connecting) return Promise.resolve();
      // A connect() or renew() in flight finishes first: its session is then the one ended.
      disconnecting = Promise.allSettled([connecting, renewing])
        .then(() => disconnect(rt))
        .finally(() => (disconnecting = undefined));
      return disconnecting;
    },
    startCall: (input, callOptions) => withSip(({ calls }) => calls.startCall(input, callOptions)),
    answerNext: (queueId) => withSip(({ calls }) => calls.answerNext(queueId)),
    setAvailability: (availability) => withSip(({ calls }) => calls.setAvailability(availability)),
    accept: () => withSip(({ calls }) => calls.accept()),
    decline: () => withSip(({ calls }) => calls.decline()),
    monitor: (callId) => withSip(({ calls }) => calls.monitor(callId)),
    startRecording: () => withSip(({ calls }) => calls.startRecording()),
    stopRecording: () => withSip(({ calls }) => calls.stopRecording()),
    hangup: rt.hangup,
    mute(muted) {
      try {
        rt.dispatch({ type: 'mute_set', muted: setMuted(rt.link, muted) });
      } catch (error) {
        rt.dispatch({ type: 'refused', error: toVoiceError(error, 'invalid_argument', 'mute() failed').toStatus() });
        throw error;
      }
    },
    sendDtmf: (digit) => withSip(({ calls }) => calls.sendDtmf(digit)),
    renew() {
      if (renewing) return renewing;
      const status = rt.status();
      if (!canRenew(status)) {
        return rt.refuse(
          status.busy
            ? new VoiceBrowserError('browser_agent_busy', 'renew() only while idle: wait until busy is false')
            : new VoiceBrowserError('browser_session_unavailable', `renew() while ${status.connection}; connect() first`),
        );
      }
      renewing = withSip(({ setup }) => setup.renew()).finally(() => (renewing = undefined));
      return renewing;
    },
    async resumeAudio() {
      await rt.link?.resumeAudio();
    },
    status: () => rt.status(),
    preflight(call) {
      if (testing) return testing;
      if (!fresh()) return notFresh('preflight');
      testing = sip()
        .then((chunk) => chunk.runPreflight(call, { helper: (report) => createHelper({ ...given, ...report, remoteAudio: undefined, closeProtection: false }, internals, undefined), clock: rt.clock, microphoneId: options.audioDevices?.microphoneId }))
        .catch(unloaded)
        .finally(() => (testing = undefined));
      return testing;
    },
    destroy: () => helper.disconnect(),
  };
  return helper;
}
