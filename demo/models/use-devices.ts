import { useCallback, useEffect, useState } from 'preact/hooks';
import { listAudioDevices } from 'voice-browser';

/**
 * The demo's device model: the microphones and speakers the library lists, the ones picked, and whether a
 * speaker can be chosen here at all.
 *
 * @remarks
 * Labels are empty until the page has had the microphone once (and Firefox lists no speaker until then), so the
 * list is read again on `devicechange` and whenever the phone asks (after a call's audio starts).
 */

export interface DeviceOption {
  id: string;
  label: string;
}

export interface DevicesModel {
  microphones: DeviceOption[];
  speakers: DeviceOption[];
  /** The library's `canChooseSpeaker`: false hides the speaker picker (no setSinkId, or no output listed). */
  canChooseSpeaker: boolean;
  /** '' is the system default. */
  microphoneId: string;
  speakerId: string;
  setMicrophone(id: string): void;
  setSpeaker(id: string): void;
  refresh(): void;
}

/** The devices as picker options; the browser's own `default` entry is the picker's "System default". */
function options(devices: MediaDeviceInfo[], noun: string): DeviceOption[] {
  return devices.filter((device) => device.deviceId !== 'default').map((device, i) => ({ id: device.deviceId, label: device.label || `${noun} ${i + 1}` }));
}

export function useDevices(): DevicesModel {
  const [microphones, setMicrophones] = useState<DeviceOption[]>([]);
  const [speakers, setSpeakers] = useState<DeviceOption[]>([]);
  const [canChooseSpeaker, setCanChooseSpeaker] = useState(false);
  const [microphoneId, setMicrophone] = useState('');
  const [speakerId, setSpeaker] = useState('');

  const refresh = useCallback(() => {
    void listAudioDevices().then((devices) => {
      setMicrophones(options(devices.microphones, 'Microphone'));
      setSpeakers(options(devices.speakers, 'Speaker'));
      setCanChooseSpeaker(devices.canChooseSpeaker);
    });
  }, []);

  useEffect(() => {
    refresh();
    const media = globalThis.navigator?.mediaDevices;
    media?.addEventListener?.('devicechange', refresh);
    return () => media?.removeEventListener?.('devicechange', refresh);
  }, [refresh]);

  return { microphones, speakers, canChooseSpeaker, microphoneId, speakerId, setMicrophone, setSpeaker, refresh };
}
