import { useState } from 'preact/hooks';
import type { VoiceBrowserStatus } from '../../lib/index.js';
import { callButtonLabel, canCall, canHangUp, isCleanupOnly, recoveryLabel, type RecoveredFrom } from '../labels.js';
import { FROM_NUMBERS, TEST_NUMBERS } from '../test-numbers.js';

/** Props of {@link Dialer}. */
export interface DialerProps {
  status: VoiceBrowserStatus;
  /** Where a session recover() found comes from, for its words. */
  recoveredFrom: RecoveredFrom;
  onCall(from: string, to: string): void;
  onHangUp(): void;
}

/** Hang up, enabled while there is a call or session to end. */
function HangUpButton({ status, onHangUp }: Pick<DialerProps, 'status' | 'onHangUp'>) {
  return (
    <button type="button" class="secondary" onClick={onHangUp} disabled={!canHangUp(status)}>
      Hang up
    </button>
  );
}

/** A session recover() found: its call can only be hung up, since its audio cannot come back to this page. */
function RecoveredCall({ status, recoveredFrom, onHangUp }: Pick<DialerProps, 'status' | 'recoveredFrom' | 'onHangUp'>) {
  return (
    <section aria-label="Recovered call">
      <p data-testid="recovery-words">{recoveryLabel(status, recoveredFrom)}</p>
      <div class="row">
        <HangUpButton status={status} onHangUp={onHangUp} />
      </div>
    </section>
  );
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
        <input value={value} onInput={(event) => onChange(event.currentTarget.value)} inputMode="tel" list="test-numbers" />
      </label>
      <datalist id="test-numbers">
        {TEST_NUMBERS.map(({ number, behaviour }) => (
          <option key={number} value={number} label={behaviour} />
        ))}
      </datalist>
    </>
  );
}

/** From and to numbers, Call and Hang up; for a recovered session only Hang up for its call. */
export function Dialer({ status, recoveredFrom, onCall, onHangUp }: DialerProps) {
  const [from, setFrom] = useState(FROM_NUMBERS[0]?.number ?? '');
  const [to, setTo] = useState('+12025550100');
  if (isCleanupOnly(status)) return <RecoveredCall status={status} recoveredFrom={recoveredFrom} onHangUp={onHangUp} />;
  return (
    <section aria-label="Dialer">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onCall(from.trim(), to.trim());
        }}
      >
        <FromNumber value={from} onChange={setFrom} />
        <ToNumber value={to} onChange={setTo} />
        <div class="row">
          <button type="submit" disabled={!canCall(status)}>
            {callButtonLabel(status)}
          </button>
          <HangUpButton status={status} onHangUp={onHangUp} />
        </div>
      </form>
    </section>
  );
}
