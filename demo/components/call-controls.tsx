import { canSendDtmf, type VoiceBrowserStatus } from 'voice-browser';
import { canHangUp, dialName, KEYPAD_DIGITS } from '../call-labels.js';
import { canRecord, recordButtonLabel } from '../supervision-labels.js';

/** Props of {@link CallControls}. */
export interface CallControlsProps {
  status: VoiceBrowserStatus;
  digitsSent: string;
  keypadOpen: boolean;
  onToggleKeypad(): void;
  onHangUp(): void;
  onToggleMute(): void;
  onDigit(digit: string): void;
  onToggleRecording(): void;
}

/** Hang up, the one action every call state but `ending` takes; `label` words it otherwise (a monitor leg's "Stop listening"). */
export function HangUpButton({ status, onHangUp, label = 'Hang up' }: Pick<CallControlsProps, 'status' | 'onHangUp'> & { label?: string }) {
  return (
    <button type="button" class="hangup" onClick={onHangUp} disabled={!canHangUp(status)}>
      {label}
    </button>
  );
}

/** Record / Stop recording on a connected call; "Recording" shows only once the service said so (`status().recording`). */
export function RecordControls({ status, onToggleRecording }: Pick<CallControlsProps, 'status' | 'onToggleRecording'>) {
  return (
    <>
      <button type="button" class="secondary" onClick={onToggleRecording} disabled={!canRecord(status)}>
        {recordButtonLabel(status)}
      </button>
      {status.recording && (
        <span class="recording-indicator" data-testid="recording">
          <span aria-hidden="true">● </span>Recording
        </span>
      )}
    </>
  );
}

/** Mute: outgoing audio only, kept for later calls, so it can be set before a call too. */
export function MuteButton({ status, onToggleMute }: Pick<CallControlsProps, 'status' | 'onToggleMute'>) {
  return (
    <button type="button" class="secondary toggle" aria-pressed={status.muted} onClick={onToggleMute}>
      Mute
    </button>
  );
}

/** The 16-key DTMF pad, keys enabled while the call is answered and its audio is this page's. */
function Keypad({ status, digitsSent, onDigit }: Pick<CallControlsProps, 'status' | 'digitsSent' | 'onDigit'>) {
  const keys = canSendDtmf(status);
  return (
    <div id="keypad">
      <div class="keypad" role="group" aria-label="Keypad">
        {KEYPAD_DIGITS.map((digit) => (
          <button key={digit} type="button" class="secondary" aria-label={dialName(digit)} disabled={!keys} onClick={() => onDigit(digit)}>
            {digit}
          </button>
        ))}
      </div>
      <p>
        Digits sent: <output data-testid="digits-sent">{digitsSent || '—'}</output>
      </p>
    </div>
  );
}

/** A call's actions: Hang up (large), Mute, the keypad on demand, and Record. */
export function CallControls({ status, digitsSent, keypadOpen, onToggleKeypad, onHangUp, onToggleMute, onDigit, onToggleRecording }: CallControlsProps) {
  return (
    <>
      <div class="call-actions">
        <HangUpButton status={status} onHangUp={onHangUp} />
        <MuteButton status={status} onToggleMute={onToggleMute} />
        <button type="button" class="secondary" aria-expanded={keypadOpen} aria-controls={keypadOpen ? "keypad" : undefined} onClick={onToggleKeypad}>
          Keypad
        </button>
      </div>
      <div class="record-row">
        <RecordControls status={status} onToggleRecording={onToggleRecording} />
      </div>
      {status.muted && (
        <p data-testid="muted" class="hint">
          Microphone muted: the other side hears silence
        </p>
      )}
      {keypadOpen && <Keypad status={status} digitsSent={digitsSent} onDigit={onDigit} />}
    </>
  );
}
