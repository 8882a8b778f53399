import type { DeviceOption } from '../models/use-devices.js';

export interface DevicePickersProps {
  microphones: DeviceOption[];
  speakers: DeviceOption[];
  microphoneId: string;
  speakerId: string;
  /** The picks differ from the running helper's: they apply at the next Connect (spec 4.9). */
  pending: boolean;
  onMicrophone(id: string): void;
  onSpeaker(id: string): void;
}

/** Microphone and speaker pickers; a helper's devices are fixed for its life, so a change waits for Connect. */
export function DevicePickers({ microphones, speakers, microphoneId, speakerId, pending, onMicrophone, onSpeaker }: DevicePickersProps) {
  return (
    <section aria-label="Audio devices">
      <label>
        Microphone
        <select value={microphoneId} onChange={(event) => onMicrophone(event.currentTarget.value)}>
          <option value="">System default</option>
          {microphones.map((device) => (
            <option key={device.id} value={device.id}>
              {device.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Speaker
        <select value={speakerId} onChange={(event) => onSpeaker(event.currentTarget.value)}>
          <option value="">System default</option>
          {speakers.map((device) => (
            <option key={device.id} value={device.id}>
              {device.label}
            </option>
          ))}
        </select>
      </label>
      {pending && <p data-testid="devices-pending">The new devices apply at the next Connect (disconnect first if connected).</p>}
    </section>
  );
}
