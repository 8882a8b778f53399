import { canConnect, canRetryCall, type Availability, type PreflightReport, type StatusError, type VoiceBrowser } from 'voice-browser';
import { errorArea, type ErrorArea } from '../labels.js';
import type { RaisedError } from './error-lifetime.js';
import { FROM_NUMBERS, TEST_NUMBERS } from '../test-numbers.js';

/**
 * The actions the phone's buttons call, each run on the current helper; a failure is kept for the page
 * (the helper's status carries it too). Built afresh by `useVoice` whenever its state changes.
 */

/** The buttons' actions of the voice model. */
export interface VoiceActions {
  /** Connects; with new devices picked and nothing open, on a fresh helper that uses them (spec 4.9). */
  connect(): void;
  disconnect(): void;
  renew(): void;
  /** Starts a call; after a lost answer, the same attempt again under its key (spec 7). */
  call(from: string, to: string): void;
  /** Takes the next caller waiting in `queueId` (answerNext()): the call then runs on the call card. */
  answerNext(queueId: string): void;
  /** Answers the offered caller ringing (accept()): the call then runs on the call card. */
  accept(): void;
  /** Sends the offered caller ringing on to the next agent (decline()). */
  decline(): void;
  /** Says whether this agent takes offered callers; the switch shows the server's answer. */
  setAvailability(availability: Availability): void;
  hangup(): void;
  toggleMute(): void;
  /** Supervisors: listens in on call `callId` (monitor()): the leg then runs on the call card, listen-only. */
  listen(callId: string): void;
  /** Starts or stops recording the current call, as `status().recording` says it is not or is. */
  toggleRecording(): void;
  /** Sends one DTMF digit and, once sent, adds it to the digits shown. */
  sendDigit(digit: string): void;
  resumeAudio(): void;
  /** "Test my setup": preflight() on the (fresh) helper, calling the simulator's echo number. */
  testSetup(): void;
}

/** The setup test as the page shows it: running, and the last report. */
export interface PreflightView {
  running: boolean;
  report: PreflightReport | null;
}

/** Where the setup test calls: the echo number, from the first caller id. */
export const PREFLIGHT_CALL = { from: FROM_NUMBERS[0]?.number ?? '+12025550199', to: TEST_NUMBERS[0]?.number ?? '+12025550100' };

/** What the actions need besides the helper. */
export interface ActionContext {
  /** Runs one action of the page's `area`, keeping the failure should it reject (see {@link createAct}). */
  act(area: ErrorArea, run: () => Promise<unknown>): void;
  /** The picked devices differ from the helper's. */
  devicesPending: boolean;
  /** Builds a helper on the picked devices and makes it the current one. */
  rebuild(): VoiceBrowser;
  /** Records a digit sent on the current call. */
  addDigit(digit: string): void;
  /** Shows the setup test's progress and report. */
  showPreflight(view: PreflightView): void;
}

/** The text an action's failure shows: its message, or the thrown value itself. */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** What the page knows of failures besides the helper's status: one error, shown in one place. */
export interface ErrorView {
  /** Where the last action was taken: an error no one side owns shows there. */
  lastAction: ErrorArea;
  /** The last action's own failure, when it threw. */
  actionError: string | null;
  /** A helper error that a later action's success, or the end of its call (`followCall`), settled: no longer shown. */
  settled: StatusError | null;
  /** The helper's current error as first seen, with its call (`followCall`). */
  raised: RaisedError | null;
}

export const noErrors: ErrorView = { lastAction: 'connection', actionError: null, settled: null, raised: null };

/**
 * An `act` that starts each action with the last failure cleared, keeps the action's failure, and settles the
 * helper's error that was shown when a later action succeeds (the helper keeps `status().error` until its
 * next failure or state change; the page stops showing it once the person got past it).
 */
export function createAct(update: (change: (view: ErrorView) => ErrorView) => void, helperError: () => StatusError | null): ActionContext['act'] {
  return (area, run) => {
    const before = helperError();
    update((view) => ({ ...view, lastAction: area, actionError: null }));
    run().then(
      () => {
        if (before && helperError() === before) update((view) => ({ ...view, settled: before }));
      },
      (error: unknown) => update((view) => ({ ...view, actionError: errorMessage(error) })),
    );
  };
}

/** The error the page shows, and beside what. */
export interface ShownError {
  area: ErrorArea;
  /** The helper's error (`status().error`). */
  error: StatusError | null;
  /** Else the failure of an action that threw without one. */
  message: string | null;
}

/** The one error the page shows and where: the helper's (unless settled), else the action's own; null when none. */
export function shownError(error: StatusError | null, view: ErrorView): ShownError | null {
  const current = error && error !== view.settled ? error : null;
  if (current) return { area: errorArea(current.code, view.lastAction), error: current, message: null };
  if (view.actionError) return { area: view.lastAction, error: null, message: view.actionError };
  return null;
}

/** The actions on `voice`, the helper current when they were made. */
export function voiceActions(voice: VoiceBrowser, { act, devicesPending, rebuild, addDigit, showPreflight }: ActionContext): VoiceActions {
  // New devices picked while nothing is held apply now: a fresh helper on them (spec 4.9: fixed per helper). Not
  // while a call of the last session is unproven ended (busy): the helper that knows of it must refuse connect().
  const onPickedDevices = () => (devicesPending && canConnect(voice.status()) ? rebuild() : voice);
  return {
    connect: () => act('connection', () => onPickedDevices().connect()),
    disconnect: () => act('connection', () => voice.disconnect()),
    renew: () => act('connection', () => voice.renew()),
    call: (from, to) => {
      const attempt = voice.status().attempt;
      // After a lost answer the same attempt is retried with its key, never a new one (spec 7).
      const key = attempt && canRetryCall(voice.status()) ? attempt.idempotencyKey : crypto.randomUUID();
      act('call', () => voice.startCall({ from, to }, { idempotencyKey: key }));
    },
    // Its failures (nobody left to take, a lost answer) show on the queue panel, where it was asked for.
    answerNext: (queueId) => act('queue', () => voice.answerNext(queueId)),
    // The ringing card stands in for the call card, and an accepted caller's failures belong to that call.
    accept: () => act('call', () => voice.accept()),
    decline: () => act('call', () => voice.decline()),
    setAvailability: (availability) => {
      // Going available is the moment to ask for desktop notifications: a click, and offers are what they tell.
      if (availability === 'available' && globalThis.Notification?.permission === 'default') void Notification.requestPermission().catch(() => undefined);
      act('queue', () => voice.setAvailability(availability));
    },
    hangup: () => act('call', () => voice.hangup()),
    toggleMute: () => act('call', async () => voice.mute(!voice.status().muted)),
    // The leg shows on the call card, so its failures do too.
    listen: (callId) => act('call', () => voice.monitor(callId)),
    toggleRecording: () => act('call', () => (voice.status().recording ? voice.stopRecording() : voice.startRecording())),
    sendDigit: (digit) =>
      act('call', async () => {
        await voice.sendDtmf(digit);
        addDigit(digit);
      }),
    resumeAudio: () => act('call', () => voice.resumeAudio()),
    testSetup: () =>
      act('connection', async () => {
        showPreflight({ running: true, report: null });
        const report = await onPickedDevices()
          .preflight(PREFLIGHT_CALL)
          .finally(() => showPreflight({ running: false, report: null }));
        showPreflight({ running: false, report });
      }),
  };
}
