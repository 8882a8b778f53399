import { useState } from 'preact/hooks';
import type { VoiceBrowserStatus } from '../../lib/index.js';
import { callButtonLabel, canCall, canHangUp, isCleanupOnly } from '../labels.js';
import { FROM_NUMBERS, TEST_NUMBERS } from '../test-numbers.js';

export interface DialerProps {
  status: VoiceBrowserStatus;
  onCall(from: string, to: string): void;
  onHangUp(): void;
}

/** From and to numbers, Call and Hang up; after a reload only Hang up for the recovered call (spec 4.9). */
export function Dialer({ status, onCall, onHangUp }: DialerProps) {
  const [from, setFrom] = useState(FROM_NUMBERS[0]?.number ?? '');
  const [to, setTo] = useState('+12025550100');
  const hangUp = (
    <button type="button" class="secondary" onClick={onHangUp} disabled={!canHangUp(status)}>
      Hang up
    </button>
  );
  if (isCleanupOnly(status)) {
    return (
      <section aria-label="Recovered call">
        <p>
          A session from before the reload is still open{status.call ? ', with its call' : ''}. Audio is not restored (spec 4.9): hang up and end the
          session, then connect again.
        </p>
        <div class="row">{hangUp}</div>
      </section>
    );
  }
  return (
    <section aria-label="Dialer">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onCall(from.trim(), to.trim());
        }}
      >
        <label>
          From number
          <select value={from} onChange={(event) => setFrom(event.currentTarget.value)}>
            {FROM_NUMBERS.map(({ number, label }) => (
              <option key={number} value={number}>
                {number} ({label})
              </option>
            ))}
          </select>
        </label>
        <label>
          Number to call
          <input value={to} onInput={(event) => setTo(event.currentTarget.value)} inputMode="tel" list="test-numbers" />
        </label>
        <datalist id="test-numbers">
          {TEST_NUMBERS.map(({ number, behaviour }) => (
            <option key={number} value={number} label={behaviour} />
          ))}
        </datalist>
        <div class="row">
          <button type="submit" disabled={!canCall(status)}>
            {callButtonLabel(status)}
          </button>
          {hangUp}
        </div>
      </form>
    </section>
  );
}
