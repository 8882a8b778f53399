import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { createFetchBackend, createVoiceBrowser, type TimingEvent, type VoiceBrowser, type VoiceBrowserStatus } from '../../lib/index.js';

/**
 * The demo's model: one helper per logged-in page, its status as state, and the actions the buttons call.
 */

export interface VoiceModel {
  status: VoiceBrowserStatus;
  timings: TimingEvent[];
  /** The last action's failure, when the action itself threw (the status also carries it). */
  actionError: string | null;
  connect(): void;
  disconnect(): void;
  call(from: string, to: string): void;
  hangup(): void;
}

export function useVoice(remoteAudio: () => HTMLAudioElement | null): VoiceModel {
  const [status, setStatus] = useState<VoiceBrowserStatus | null>(null);
  const [timings, setTimings] = useState<TimingEvent[]>([]);
  const [actionError, setActionError] = useState<string | null>(null);
  const helper = useRef<VoiceBrowser | null>(null);

  if (!helper.current) {
    helper.current = createVoiceBrowser({
      backend: createFetchBackend(),
      remoteAudio: remoteAudio() ?? undefined,
      onStatus: setStatus,
      onTiming: (event) => setTimings((list) => [...list.slice(-49), event]),
    });
  }
  const voice = helper.current;

  useEffect(() => () => void voice.disconnect().catch(() => undefined), [voice]);

  return useMemo(() => {
    const act = (run: () => Promise<unknown>) => {
      setActionError(null);
      run().catch((error: unknown) => setActionError(error instanceof Error ? error.message : String(error)));
    };
    return {
      status: status ?? voice.status(),
      timings,
      actionError,
      connect: () => act(() => voice.connect()),
      disconnect: () => act(() => voice.disconnect()),
      call: (from, to) => {
        const attempt = voice.status().attempt;
        // After a lost answer the same attempt is retried with its key, never a new one (spec 7).
        const key = attempt?.phase === 'outcome_unknown' ? attempt.idempotencyKey : crypto.randomUUID();
        act(() => voice.startCall({ from, to }, { idempotencyKey: key }));
      },
      hangup: () => act(() => voice.hangup()),
    };
  }, [status, timings, actionError, voice]);
}
