import type { VoiceBrowser } from '../../lib/index.js';

/**
 * The actions the phone's buttons call, each run on the current helper; a failure is kept for the page
 * (the helper's status carries it too). Built afresh by `use-voice.ts` whenever its state changes.
 */

/** The buttons' actions of the voice model. */
export interface VoiceActions {
  /** Connects; with new devices picked and nothing open, on a fresh helper that uses them (spec 4.9). */
  connect(): void;
  disconnect(): void;
  renew(): void;
  /** Starts a call; after a lost answer, the same attempt again under its key (spec 7). */
  call(from: string, to: string): void;
  hangup(): void;
  toggleMute(): void;
  /** Sends one DTMF digit and, once sent, adds it to the digits shown. */
  sendDigit(digit: string): void;
  resumeAudio(): void;
}

/** What the actions need besides the helper. */
export interface ActionContext {
  /** Runs one action, keeping the failure should it reject (see {@link createAct}). */
  act(run: () => Promise<unknown>): void;
  /** The picked devices differ from the helper's. */
  devicesPending: boolean;
  /** Builds a helper on the picked devices and makes it the current one. */
  rebuild(): VoiceBrowser;
  /** Records a digit sent on the current call. */
  addDigit(digit: string): void;
}

/** The text an action's failure shows: its message, or the thrown value itself. */
export const errorMessage = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An `act` that clears the last failure, runs the action, and keeps its failure through `setError`. */
export function createAct(setError: (message: string | null) => void): ActionContext['act'] {
  return (run) => {
    setError(null);
    run().catch((error: unknown) => setError(errorMessage(error)));
  };
}

/** The actions on `voice`, the helper current when they were made. */
export function voiceActions(voice: VoiceBrowser, { act, devicesPending, rebuild, addDigit }: ActionContext): VoiceActions {
  return {
    connect: () =>
      act(() => {
        const idle = voice.status().connection === 'disconnected' && !voice.status().session;
        return (devicesPending && idle ? rebuild() : voice).connect();
      }),
    disconnect: () => act(() => voice.disconnect()),
    renew: () => act(() => voice.renew()),
    call: (from, to) => {
      const attempt = voice.status().attempt;
      // After a lost answer the same attempt is retried with its key, never a new one (spec 7).
      const key = attempt?.phase === 'outcome_unknown' ? attempt.idempotencyKey : crypto.randomUUID();
      act(() => voice.startCall({ from, to }, { idempotencyKey: key }));
    },
    hangup: () => act(() => voice.hangup()),
    toggleMute: () => act(async () => voice.mute(!voice.status().muted)),
    sendDigit: (digit) =>
      act(async () => {
        await voice.sendDtmf(digit);
        addDigit(digit);
      }),
    resumeAudio: () => act(() => voice.resumeAudio()),
  };
}
