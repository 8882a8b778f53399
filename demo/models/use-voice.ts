import type { RefObject } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { followCall } from './error-lifetime.js';
import { emptyPaths, trackPaths, type StatePaths } from './state-paths.js';
import { createAct, errorMessage, noErrors, shownError, voiceActions, type ErrorView, type PreflightView, type ShownError, type VoiceActions } from './voice-actions.js';
import type { RecoveredFrom } from '../call-labels.js';
import { logEvent } from '../labels.js';
import { offerOptions } from '../offer-labels.js';
import { createFetchBackend, createVoiceBrowser, type TimingEvent, type VoiceBrowser, type VoiceBrowserStatus } from 'voice-browser';

/**
 * The demo's model: one helper per logged-in page, its status as state, and the actions the buttons call
 * (`voiceActions`).
 *
 * @remarks
 * spec 4.9: a helper's `audioDevices` are fixed for its life. A device picked while connected applies at the
 * next Connect: connect() then builds a fresh helper with the picked devices (the old one holds nothing once
 * disconnected). On load the helper runs recover(), so a reload during a call shows that call for cleanup.
 */

/** The devices picked for the helper; absent is the system default. */
export interface AudioDevices {
  microphoneId?: string;
  speakerId?: string;
}

/** What {@link useVoice} gives the page: the helper's state and the buttons' actions. */
export interface VoiceModel extends VoiceActions {
  /** The current helper: the same object until a rebuild replaces it (what `watchQueues()` is asked of). */
  helper: VoiceBrowser;
  /** Where the call's audio plays: made here so every helper gets it from its start; the page mounts it. */
  audio: HTMLAudioElement;
  status: VoiceBrowserStatus;
  /** The connection states and the current call's states taken so far, for the live diagram. */
  paths: StatePaths;
  timings: TimingEvent[];
  /** Digits this page sent on the current call, in order. */
  digitsSent: string;
  /** recover() is still reading the current session: connect() would be refused until it answers. */
  recovering: boolean;
  /** The picked devices differ from the helper's: they apply at the next Connect. */
  devicesPending: boolean;
  /** The one error to show and where (see `shownError`): cleared when a later action succeeds. */
  error: ShownError | null;
  /** Whether a session recover() found is this tab's from before a reload, or from another visit or tab. */
  recoveredFrom: RecoveredFrom;
  /** "Test my setup": running, and its last report. */
  preflight: PreflightView;
}

/** The current helper and the devices it was built with. */
type Held = { voice: VoiceBrowser; devices: AudioDevices };

/** Where a current helper's reports go. */
interface HelperListener {
  status(next: VoiceBrowserStatus): void;
  timing(event: TimingEvent): void;
}

const sameDevices = (a: AudioDevices, b: AudioDevices) => (a.microphoneId || '') === (b.microphoneId || '') && (a.speakerId || '') === (b.speakerId || '');

/** Builds a helper on `chosen` devices, playing into `audio`, and makes it the one `slot` holds. */
function buildHelper(chosen: AudioDevices, audio: HTMLAudioElement, slot: RefObject<Held | null>, listener: HelperListener): Held {
  const audioDevices = { ...(chosen.microphoneId ? { microphoneId: chosen.microphoneId } : {}), ...(chosen.speakerId ? { speakerId: chosen.speakerId } : {}) };
  const voice: VoiceBrowser = createVoiceBrowser({
    // The demo server turns its proxy's queues on: the support desk panel uses them.
    backend: createFetchBackend({ queues: true }),
    // `?tabs=independent` shows each tab as a phone of its own (the e2e suite's tests of that mode use it).
    tabs: new URLSearchParams(location.search).get('tabs') === 'independent' ? 'independent' : 'shared',
    // Offered callers ring for the helper's default time; `?ringMs=` shortens it (the e2e suite's absent agent).
    // A hidden phone tab also raises a desktop notification, once the agent allowed them (asked on Available).
    offers: { ...offerOptions(new URLSearchParams(location.search)), notify: true },
    remoteAudio: audio,
    audioDevices,
    // A replaced helper is idle and disconnected; should it still speak, the page no longer listens.
    onStatus: (next) => {
      if (slot.current?.voice !== voice) return;
      listener.status(next);
    },
    onTiming: (event) => slot.current?.voice === voice && listener.timing(event),
  });
  slot.current = { voice, devices: { ...chosen } };
  return slot.current;
}

/**
 * This tab held a session: kept in sessionStorage, which a reload keeps and a new tab or visit starts without,
 * so a session recover() finds can be told apart as this tab's own from before a reload.
 */
const HELD_A_SESSION = 'voice-browser-demo:held-a-session';

/** Where a session recover() finds comes from (read once, as the page loads), and keeping that mark true. */
function useRecoveredFrom(status: VoiceBrowserStatus | null): RecoveredFrom {
  const [from] = useState<RecoveredFrom>(() => (sessionStorage.getItem(HELD_A_SESSION) ? 'reload' : 'elsewhere'));
  const connection = status?.connection;
  const holds = Boolean(status?.session);
  useEffect(() => {
    if (connection === 'ready') sessionStorage.setItem(HELD_A_SESSION, '1');
    else if (connection === 'disconnected' && !holds) sessionStorage.removeItem(HELD_A_SESSION);
  }, [connection, holds]);
  return from;
}

/** After a reload, a leftover session and call come back for cleanup only; leaving the page destroys the helper. */
function useRecovery(helper: () => VoiceBrowser, failed: (message: string) => void, setRecovering: (recovering: boolean) => void): void {
  useEffect(() => {
    helper()
      .recover()
      .catch((error: unknown) => failed(errorMessage(error)))
      .finally(() => setRecovering(false));
    return () => void helper().destroy().catch(() => undefined);
  }, []);
}

/** The voice model over one helper per page, on the `devices` picked (see the file comment). */
export function useVoice(devices: AudioDevices): VoiceModel {
  const [status, setStatus] = useState<VoiceBrowserStatus | null>(null);
  const [timings, setTimings] = useState<TimingEvent[]>([]);
  const [paths, setPaths] = useState<StatePaths>({ ...emptyPaths, connection: ['disconnected'] });
  const [digitsSent, setDigitsSent] = useState('');
  const [errors, setErrors] = useState<ErrorView>(noErrors);
  const [recovering, setRecovering] = useState(true);
  const [preflight, setPreflight] = useState<PreflightView>({ running: false, report: null });
  const current = useRef<Held | null>(null);
  const [audio] = useState(() => Object.assign(document.createElement('audio'), { autoplay: true }));

  const listener: HelperListener = {
    status: (next) => {
      setStatus(next);
      setPaths((taken) => trackPaths(taken, next));
      setErrors((view) => followCall(view, next));
    },
    timing: (event) => setTimings((list) => logEvent(list, event)),
  };
  const build = (chosen: AudioDevices): Held => buildHelper(chosen, audio, current, listener);
  const held = current.current ?? build(devices);
  const helper = () => (current.current ?? held).voice;
  useRecovery(helper, (message) => setErrors((view) => ({ ...view, actionError: message })), setRecovering);
  const recoveredFrom = useRecoveredFrom(status);

  const callId = status?.call?.id;
  useEffect(() => setDigitsSent(''), [callId]);

  const devicesPending = !sameDevices(held.devices, devices);

  return useMemo(() => {
    const voice = helper();
    const act = createAct(setErrors, () => helper().status().error);
    const actions = voiceActions(voice, {
      act,
      devicesPending,
      // The old helper leaves the tabs before the new one joins them (it holds nothing: see onPickedDevices).
      rebuild: () => {
        void voice.destroy().catch(() => undefined);
        return build(devices).voice;
      },
      addDigit: (digit) => setDigitsSent((sent) => sent + digit),
      showPreflight: setPreflight,
    });
    const shown = status ?? voice.status();
    return { helper: voice, audio, status: shown, paths, timings, digitsSent, recovering, devicesPending, error: shownError(shown.error, errors), recoveredFrom, preflight, ...actions };
  }, [status, paths, timings, digitsSent, recovering, devicesPending, errors, recoveredFrom, preflight, devices.microphoneId, devices.speakerId]);
}
