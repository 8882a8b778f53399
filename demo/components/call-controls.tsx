import type { VoiceBrowserStatus } from '../../lib/index.js';
import { canSendDtmf, dialName, KEYPAD_DIGITS } from '../labels.js';

export interface CallControlsProps {
  status: VoiceBrowserStatus;
  digitsSent: string;
  onToggleMute(): void;
  onDigit(digit: string): void;
}

/** Mute (outgoing audio only, kept for later calls) and the DTMF keypad (spec 4.9). */
export function CallControls({ status, digitsSent, onToggleMute, onDigit }: CallControlsProps) {
  const keys = canSendDtmf(status);
  return (
    <section aria-label="Call controls">
      <div class="row">
        <button type="button" class="secondary toggle" aria-pressed={status.muted} onClick={onToggleMute}>
          Mute
        </button>
        <span data-testid="muted">{status.muted ? 'Microphone muted: the other side hears silence' : 'Microphone on'}</span>
      </div>
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
    </section>
  );
}
