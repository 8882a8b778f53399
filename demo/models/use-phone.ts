import { useEffect } from 'preact/hooks';
import { useCallTimer } from './use-call-timer.js';
import { useCallers, type CallersModel } from './use-callers.js';
import { useDevices, type DevicesModel } from './use-devices.js';
import { useQueues, type QueuesModel } from './use-queues.js';
import { useSupervision, type SupervisionModel } from './use-supervision.js';
import { useVoice, type VoiceModel } from './use-voice.js';

/**
 * The phone's model: the devices, the voice helper on the picked devices, the current call's timer, the
 * support queues watched through that helper, and a supervisor's view of their agents' calls.
 */

/** What {@link usePhone} returns. */
export interface PhoneModel {
  devices: DevicesModel;
  voice: VoiceModel;
  /** Seconds the current call has been connected, or null (see `useCallTimer`). */
  callSeconds: number | null;
  /** The user's queues and who waits in them (see `useQueues`). */
  queues: QueuesModel;
  /** A supervisor's calls of their agents and their recordings (see `useSupervision`). */
  supervision: SupervisionModel;
  /** Test callers sent on demand, with the embedded simulator (see `useCallers`). */
  callers: CallersModel;
}

/**
 * The models the phone page runs, wired together; `supervisor`: the login says the user may supervise.
 *
 * @remarks
 * Device names appear once the page has used the microphone, so the devices are listed again when a call's
 * audio starts.
 */
export function usePhone(supervisor: boolean): PhoneModel {
  const devices = useDevices();
  const voice = useVoice({ microphoneId: devices.microphoneId, speakerId: devices.speakerId });
  const callSeconds = useCallTimer(voice.status);
  const queues = useQueues(voice.helper);
  const supervision = useSupervision(supervisor);
  const callers = useCallers();

  const refreshDevices = devices.refresh;
  const audioState = voice.status.audio;
  useEffect(() => {
    if (audioState === 'playing') refreshDevices();
  }, [audioState, refreshDevices]);

  return { devices, voice, callSeconds, queues, supervision, callers };
}
