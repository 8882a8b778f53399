import { useCallback, useEffect, useState } from 'preact/hooks';

/**
 * The demo's device model: the microphones and speakers the browser lists, and the ones picked.
 *
 * @remarks
 * Labels are empty until the page has had the microphone once, so the list is read again on
 * `devicechange` and whenever the phone asks (after a call's audio starts).
 */

export interface DeviceOption {
  id: string;
  label: string;
}

export interface DevicesModel {
  microphones: DeviceOption[];
  speakers: DeviceOption[];
  /** '' is the system default. */
  microphoneId: string;
  speakerId: string;
  setMicrophone(id: string): void;
  setSpeaker(id: string): void;
  refresh(): void;
}

function options(devices: MediaDeviceInfo[], kind: MediaDeviceKind, noun: string): DeviceOption[] {
  return devices
    .filter((device) => device.kind === kind && device.deviceId !== '' && device.deviceId !== 'default')
    .map((device, i) => ({ id: device.deviceId, label: device.label || `${noun} ${i + 1}` }));
}

export function useDevices(): DevicesModel {
  const [microphones, setMicrophones] = useState<DeviceOption[]>([]);
  const [speakers, setSpeakers] = useState<DeviceOption[]>([]);
  const [microphoneId, setMicrophone] = useState('');
  const [speakerId, setSpeaker] = useState('');

  const refresh = useCallback(() => {
    const media = globalThis.navigator?.mediaDevices;
    if (!media?.enumerateDevices) return;
    media.enumerateDevices().then(
      (devices) => {
        setMicrophones(options(devices, 'audioinput', 'Microphone'));
        setSpeakers(options(devices, 'audiooutput', 'Speaker'));
      },
      () => undefined,
    );
  }, []);

  useEffect(() => {
    refresh();
    const media = globalThis.navigator?.mediaDevices;
    media?.addEventListener?.('devicechange', refresh);
    return () => media?.removeEventListener?.('devicechange', refresh);
  }, [refresh]);

  return { microphones, speakers, microphoneId, speakerId, setMicrophone, setSpeaker, refresh };
}
