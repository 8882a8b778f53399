import type { DeviceOption } from '../models/use-devices.js';

export interface DevicePickersProps {
  microphones: DeviceOption[];
  speakers: DeviceOption[];
  /** False where this browser cannot play on a chosen speaker (yet): the speaker picker is left out. */
  canChooseSpeaker: boolean;
  microphoneId: string;
  speakerId: string;
  /** The picks differ from the running helper's: they apply at the next Connect (spec 4.9). */
  pending: boolean;
  onMicrophone(id: string): void;
  onSpeaker(id: string): void;
}

interface DeviceSelectProps {
  label: string;
  devices: DeviceOption[];
  value: string;
  onPick(id: string): void;
}

/** One labelled device list; '' is the system default. */
function DeviceSelect({ label, devices, value, onPick }: DeviceSelectProps) {
  return (
    <label>
      {label}
      <select value={value} onChange={(event) => onPick(event.currentTarget.value)}>
        <option value="">System default</option>
        {devices.map((device) => (
          <option key={device.id} value={device.id}>
            {device.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Microphone and speaker pickers; a helper's devices are fixed for its life, so a change waits for Connect. The
 * speaker picker shows only where a speaker can be chosen (not in Safari, nor in Firefox before the microphone
 * was allowed).
 */
export function DevicePickers({ microphones, speakers, canChooseSpeaker, microphoneId, speakerId, pending, onMicrophone, onSpeaker }: DevicePickersProps) {
  return (
    <section aria-label="Audio devices">
      <DeviceSelect label="Microphone" devices={microphones} value={microphoneId} onPick={onMicrophone} />
      {canChooseSpeaker && <DeviceSelect label="Speaker" devices={speakers} value={speakerId} onPick={onSpeaker} />}
      {pending && <p data-testid="devices-pending">The new devices apply at the next Connect (disconnect first if connected).</p>}
    </section>
  );
}
