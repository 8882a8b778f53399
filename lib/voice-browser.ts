import type { CallControl } from './api/calls/call-control.js';
import type { Clock } from './core/clock.js';
import { systemClock } from './platform/web/system-clock.js';
import type { disconnect, recover } from './api/session/connection-control.js';
import { toVoiceError, VoiceBrowserError } from './core/errors.js';
import { setMuted } from './api/calls/in-call-controls.js';
import { createRuntime } from './runtime/runtime.js';
import type { LinkParts, Runtime } from './runtime/runtime-types.js';
import type { SessionSetup } from './api/session/session-setup.js';
import { createSharedTabs } from './api/tabs/shared-tabs.js';
import type { createCloseProtection } from './api/session/close-protection.js';
import type { DeskControl } from './api/desk/desk-control.js';
import type { createOfferRinger } from './platform/web/media/offer-ringer.js';
import type { runPreflight } from './api/preflight/preflight.js';
import type { watchQueueStream } from './platform/web/queue-watch.js';
import type { createSessionSetup } from './api/session/session-setup.js';
import { createSessionMethods, type SessionWork } from './api/session/session-methods.js';
import { browserTabs } from './platform/web/tab-environment.js';
import type { Phone, TabEnvironment } from './runtime/tab-ports.js';
import type { VoiceBrowser, VoiceBrowserOptions } from './core/helper-types.js';
import type { VoiceBrowserStatus } from './core/types.js';

/**
 * `createVoiceBrowser`: the helper a page uses to take browser calls placed by its server. Its public face: the
 * methods, over the session's and the calls' operations and the runtime that owns the state.
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
  calls: CallControl & DeskControl;
}

/**
 * What the SIP chunk (loaded on the first connect()) brings: SIP.js's link, and every part that acts only with
 * one (the runtime's `LinkParts` are some of them). Written out here rather than read from the chunk's entry, so
 * that the factory stays one level above the operations; the compiler checks the chunk against it.
 * @internal
 */
export interface SipParts extends LinkParts, CleanupParts {
  createCallControl(rt: Runtime): CallControl & DeskControl;
  createCloseProtection: typeof createCloseProtection;
  createOfferRinger: typeof createOfferRinger;
  runPreflight: typeof runPreflight;
  watchQueueStream: typeof watchQueueStream;
  createSessionSetup: typeof createSessionSetup;
}

/** The operations that end or find a session, which need no SIP link: a chunk of their own, or with the SIP chunk. */
interface CleanupParts {
  disconnect: typeof disconnect;
  recover: typeof recover;
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
 * {@link createVoiceBrowser} over the test seams: one tab among shared ones, or a phone of its own.
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

/** disconnect()'s and recover()'s parts: their own chunk, which brings no SIP.js. */
const loadCleanup = (): Promise<CleanupParts> => import('./connection-work.js').then((chunk) => chunk.parts);

/** The page where one is (its `beforeunload`), for `closeProtection`. */
const pageOf = (): EventTarget | undefined => (typeof globalThis.addEventListener === 'function' ? globalThis : undefined);

/** A failed download of a chunk rejects the operation that needed it `connection_failed`, shown in the status. */
const unloaded = (rt: Runtime) => (error: unknown) => rt.refuse(toVoiceError(error, 'connection_failed', 'could not load a part of the helper; check the network and try again'));

/** mute(): the wish holds across calls (spec 4.9); the link applies it to the call now. */
function mute(rt: Runtime, muted: boolean): void {
  try {
    rt.dispatch({ type: 'mute_set', muted: setMuted(rt.link, muted) });
  } catch (error) {
    rt.dispatch({ type: 'refused', error: toVoiceError(error, 'invalid_argument', 'mute() failed').toStatus() });
    throw error;
  }
}

/**
 * The helper's parts over a new runtime: the SIP chunk's operations (loaded on first use, with closeProtection's
 * and the offer ringer's watches of the status, which matter only once a call can hold audio or an offer ring),
 * and the work of the session's methods, from whichever chunk brings it.
 */
function helperParts(given: VoiceBrowserOptions, internals: HelperInternals, page: EventTarget | undefined) {
  const watches: Array<((status: VoiceBrowserStatus) => void) | undefined> = [];
  const options: VoiceBrowserOptions = { ...given, onStatus: (status) => [...watches, given.onStatus].forEach((watch) => watch?.(status)) };
  const sip = sipOf(internals);
  const rt = createRuntime(options, { clock: internals.clock ?? systemClock, linkParts: sip });
  const failed = unloaded(rt);
  let loaded: SipOperations | undefined;
  /** The SIP chunk once here (a test's parts at once): it holds the cleanup too, so disconnect() then fetches nothing. */
  let chunk = internals.sipParts;
  const load = async (): Promise<SipOperations> => {
    const parts = (chunk = await sip());
    if (loaded) return loaded;
    if (given.closeProtection !== false) watches.push(parts.createCloseProtection(page));
    loaded = { setup: parts.createSessionSetup(rt), calls: parts.createCallControl(rt) };
    watches.push(parts.createOfferRinger({ clock: rt.clock, backend: rt.backend, dispatch: rt.dispatch, signal: rt.signal, setAvailability: loaded.calls.setAvailability }, options));
    return loaded;
  };
  /** Runs an operation of the SIP chunk, loaded on first use. */
  const withSip = <T>(run: (operations: SipOperations) => Promise<T>): Promise<T> => (loaded ? run(loaded) : load().then(run, failed));
  /** disconnect() and recover(): with the SIP chunk's parts once they are here, at once; before, from their own chunk. */
  const cleanup = <T>(run: (parts: CleanupParts) => Promise<T>): Promise<T> => (chunk ? run(chunk) : loadCleanup().then(run, failed));
  const work: SessionWork = {
    connect: () => withSip(({ setup }) => setup.connect()),
    renew: () => withSip(({ setup }) => setup.renew()),
    disconnect: () => cleanup((parts) => parts.disconnect(rt)),
    recover: () => cleanup((parts) => parts.recover(rt)),
    preflight: (call) =>
      sip()
        .then((chunk) => chunk.runPreflight(call, { helper: (report) => createHelper({ ...given, ...report, remoteAudio: undefined, closeProtection: false }, internals, undefined), clock: rt.clock, microphoneId: given.audioDevices?.microphoneId }))
        .catch(failed),
  };
  return { rt, withSip, work };
}

/** The helper that holds a phone: a tab's own, or the shared tabs' leader's. */
function createHelper(given: VoiceBrowserOptions, internals: HelperInternals, page: EventTarget | undefined): Phone {
  const { rt, withSip, work } = helperParts(given, internals, page);
  const session = createSessionMethods(rt, work);
  return {
    ...session,
    startCall: (input, callOptions) => withSip(({ calls }) => calls.startCall(input, callOptions)),
    answerNext: (queueId) => withSip(({ calls }) => calls.answerNext(queueId)),
    setAvailability: (availability) => withSip(({ calls }) => calls.setAvailability(availability)),
    accept: () => withSip(({ calls }) => calls.accept()),
    decline: () => withSip(({ calls }) => calls.decline()),
    monitor: (callId) => withSip(({ calls }) => calls.monitor(callId)),
    startRecording: () => withSip(({ calls }) => calls.startRecording()),
    stopRecording: () => withSip(({ calls }) => calls.stopRecording()),
    sendDtmf: (digit) => withSip(({ calls }) => calls.sendDtmf(digit)),
    hangup: rt.hangup,
    mute: (muted) => mute(rt, muted),
    async resumeAudio() {
      await rt.link?.resumeAudio();
    },
    status: () => rt.status(),
    destroy: session.disconnect,
  };
}
