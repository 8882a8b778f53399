import { canCall, type VoiceBrowserStatus } from 'voice-browser';
import { callButtonLabel } from '../call-labels.js';
import { FROM_NUMBERS, TEST_NUMBERS } from '../test-numbers.js';
import { MuteButton } from './call-controls.js';

/** Props of {@link Dialer}. */
export interface DialerProps {
  status: VoiceBrowserStatus;
  from: string;
  to: string;
  onFrom(number: string): void;
  onTo(number: string): void;
  onCall(from: string, to: string): void;
  onToggleMute(): void;
}

/** The caller-id picker, over the numbers this account may call from. */
function FromNumber({ value, onChange }: { value: string; onChange(number: string): void }) {
  return (
    <label>
      From number
      <select value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {FROM_NUMBERS.map(({ number, label }) => (
          <option key={number} value={number}>
            {number} ({label})
          </option>
        ))}
      </select>
    </label>
  );
}

/** The number to call, typed or picked from the simulator's test numbers. */
function ToNumber({ value, onChange }: { value: string; onChange(number: string): void }) {
  return (
    <>
      <label>
        Number to call
        <input value={value} onInput={(event) => onChange(event.currentTarget.value)} inputMode="tel" autoComplete="off" list="test-numbers" />
      </label>
      <datalist id="test-numbers">
        {TEST_NUMBERS.map(({ number, behaviour }) => (
          <option key={number} value={number} label={behaviour} />
        ))}
      </datalist>
    </>
  );
}

/** From and to numbers, Call (Retry call after a lost answer) and Mute; the card keeps the numbers between calls. */
export function Dialer({ status, from, to, onFrom, onTo, onCall, onToggleMute }: DialerProps) {
  return (
    <form
      class="dialer"
      onSubmit={(event) => {
        event.preventDefault();
        onCall(from.trim(), to.trim());
      }}
    >
      <FromNumber value={from} onChange={onFrom} />
      <ToNumber value={to} onChange={onTo} />
      <div class="call-actions">
        <button type="submit" class="call" disabled={!canCall(status)}>
          {callButtonLabel(status)}
        </button>
        <MuteButton status={status} onToggleMute={onToggleMute} />
      </div>
      {status.muted && (
        <p class="hint" data-testid="muted">
          Microphone muted: the next call starts muted
        </p>
      )}
    </form>
  );
}
