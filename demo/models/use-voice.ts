import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { emptyPaths, trackPaths, type StatePaths } from './state-paths.js';
import { logEvent } from '../labels.js';
import { createFetchBackend, createVoiceBrowser, type TimingEvent, type VoiceBrowser, type VoiceBrowserStatus } from '../../lib/index.js';

/**
 * The demo's model: one helper per logged-in page, its status as state, and the actions the buttons call.
 *
 * @remarks
 * spec 4.9: a helper's `audioDevices` are fixed for its life. A device picked while connected applies at the
 * next Connect: connect() then builds a fresh helper with the picked devices (the old one holds nothing once
 * disconnected). On load the helper runs recover(), so a reload during a call shows that call for cleanup.
 */

export interface AudioDevices {
  microphoneId?: string;
  speakerId?: string;
}

export interface VoiceModel {
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
  /** The last action's failure, when the action itself threw (the status also carries it). */
  actionError: string | null;
  connect(): void;
  disconnect(): void;
  renew(): void;
  call(from: string, to: string): void;
  hangup(): void;
  toggleMute(): void;
  sendDigit(digit: string): void;
  resumeAudio(): void;
}

const sameDevices = (a: AudioDevices, b: AudioDevices) => (a.microphoneId || '') === (b.microphoneId || '') && (a.speakerId || '') === (b.speakerId || '');

export function useVoice(devices: AudioDevices): VoiceModel {
  const [status, setStatus] = useState<VoiceBrowserStatus | null>(null);
  const [timings, setTimings] = useState<TimingEvent[]>([]);
  const [paths, setPaths] = useState<StatePaths>({ ...emptyPaths, connection: ['disconnected'] });
  const [digitsSent, setDigitsSent] = useState('');
  const [actionError, setActionError] = useState<string | null>(null);
  const [recovering, setRecovering] = useState(true);
  const current = useRef<{ voice: VoiceBrowser; devices: AudioDevices } | null>(null);
  const [audio] = useState(() => Object.assign(document.createElement('audio'), { autoplay: true }));

  const build = (chosen: AudioDevices): { voice: VoiceBrowser; devices: AudioDevices } => {
    const audioDevices = { ...(chosen.microphoneId ? { microphoneId: chosen.microphoneId } : {}), ...(chosen.speakerId ? { speakerId: chosen.speakerId } : {}) };
    const voice: VoiceBrowser = createVoiceBrowser({
      backend: createFetchBackend(),
      remoteAudio: audio,
      audioDevices,
      // A replaced helper is idle and disconnected; should it still speak, the page no longer listens.
      onStatus: (next) => {
        if (current.current?.voice !== voice) return;
        setStatus(next);
        setPaths((taken) => trackPaths(taken, next));
      },
      onTiming: (event) => current.current?.voice === voice && setTimings((list) => logEvent(list, event)),
    });
    current.current = { voice, devices: { ...chosen } };
    return current.current;
  };
  const held = current.current ?? build(devices);
  const helper = () => (current.current ?? held).voice;

  useEffect(() => {
    // spec 4.9: after a reload, a leftover session and call come back for cleanup only.
    helper()
      .recover()
      .catch((error: unknown) => setActionError(error instanceof Error ? error.message : String(error)))
      .finally(() => setRecovering(false));
    return () => void helper().disconnect().catch(() => undefined);
  }, []);

  const callId = status?.call?.id;
  useEffect(() => setDigitsSent(''), [callId]);

  const devicesPending = !sameDevices(held.devices, devices);

  return useMemo(() => {
    const act = (run: () => Promise<unknown>) => {
      setActionError(null);
      run().catch((error: unknown) => setActionError(error instanceof Error ? error.message : String(error)));
    };
    const voice = helper();
    return {
      audio,
      status: status ?? voice.status(),
      paths,
      timings,
      digitsSent,
      recovering,
      devicesPending,
      actionError,
      connect: () =>
        act(() => {
          const idle = voice.status().connection === 'disconnected' && !voice.status().session;
          return (devicesPending && idle ? build(devices).voice : voice).connect();
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
          setDigitsSent((sent) => sent + digit);
        }),
      resumeAudio: () => act(() => voice.resumeAudio()),
    };
  }, [status, paths, timings, digitsSent, recovering, devicesPending, actionError, devices.microphoneId, devices.speakerId]);
}
