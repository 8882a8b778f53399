import { useRef, useState } from 'preact/hooks';
import type { DemoUser } from '../api.js';
import { callButtonLabel, canCall, canHangUp } from '../labels.js';
import { useVoice } from '../models/use-voice.js';
import { TEST_NUMBERS } from '../test-numbers.js';
import { StatusPanel } from './status-panel.js';

export interface PhoneProps {
  user: DemoUser;
  onLogout(): void;
}

/** Connect, dial, hang up, and the live status. */
export function Phone({ user, onLogout }: PhoneProps) {
  const audio = useRef<HTMLAudioElement>(null);
  const voice = useVoice(() => audio.current);
  const [from, setFrom] = useState('+12025550199');
  const [to, setTo] = useState('+12025550100');
  const { status } = voice;
  const connected = status.connection === 'ready';

  return (
    <>
      <section aria-label="Connection">
        <div class="row">
          <span>Signed in as <strong>{user.name}</strong></span>
          <button type="button" onClick={voice.connect} disabled={status.connection !== 'disconnected'}>Connect</button>
          <button type="button" class="secondary" onClick={voice.disconnect} disabled={status.connection === 'disconnected' && !status.session}>Disconnect</button>
          <button type="button" class="secondary" onClick={onLogout}>Log out</button>
        </div>
      </section>
      <section aria-label="Dialer">
        <form
          onSubmit={(event) => {
            event.preventDefault();
            voice.call(from.trim(), to.trim());
          }}
        >
          <label>
            From number
            <input value={from} onInput={(event) => setFrom(event.currentTarget.value)} inputMode="tel" />
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
            <button type="submit" disabled={!connected || !canCall(status)}>{callButtonLabel(status)}</button>
            <button type="button" class="secondary" onClick={voice.hangup} disabled={!canHangUp(status)}>Hang up</button>
          </div>
        </form>
      </section>
      <StatusPanel status={status} timings={voice.timings} actionError={voice.actionError} />
      <audio ref={audio} autoplay />
    </>
  );
}
