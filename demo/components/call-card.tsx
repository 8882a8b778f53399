import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { VoiceBrowserStatus } from 'voice-browser';
import { announcementLabel, callCardMode, durationLabel, partiesLabel, recoveryLabel, unknownOutcomeLabel, warningLabel, type QueueNamer, type RecoveredFrom } from '../call-labels.js';
import { monitorAnnouncement, monitoredCallId } from '../supervision-labels.js';
import { FROM_NUMBERS } from '../test-numbers.js';
import { CallControls, HangUpButton } from './call-controls.js';
import { Dialer } from './dialer.js';

/** Props of {@link CallCard}. */
export interface CallCardProps {
  status: VoiceBrowserStatus;
  /** Seconds the call has been connected, or null before the answer. */
  callSeconds: number | null;
  /** Where a session recover() found comes from, for its words. */
  recoveredFrom: RecoveredFrom;
  digitsSent: string;
  /** Names the queue an inbound caller came from. */
  queueName: QueueNamer;
  /** The error of what was done here, when it belongs here (see `errorArea`, the demo's labels). */
  error: ComponentChildren;
  onCall(from: string, to: string): void;
  onHangUp(): void;
  onToggleMute(): void;
  onDigit(digit: string): void;
  onToggleRecording(): void;
  /** For a monitor leg: whom it listens to and the call's parties, when the supervisor's list knows the call. */
  monitored: { agent: string; parties: string } | null;
}

/** Who the call is with and its time, once there is a call or parties to name. */
function CallMeta({ parties, callSeconds }: { parties: string | null; callSeconds: number | null }) {
  return (
    <p class="call-meta">
      <span data-testid="call-parties">{parties ?? ''}</span>
      <span class="timer">
        <span class="visually-hidden">call time </span>
        <span data-testid="call-time">{durationLabel(callSeconds)}</span>
      </span>
    </p>
  );
}

/** The call's warnings in words, when it has any. */
function CallWarnings({ warnings }: { warnings: VoiceBrowserStatus['warnings'] }) {
  if (warnings.length === 0) return null;
  return (
    <ul class="call-warnings" aria-label="Call warnings" data-testid="call-warnings">
      {warnings.map((warning) => (
        <li key={warning}>{warningLabel(warning)}</li>
      ))}
    </ul>
  );
}

/** A monitor leg is listen-only: only Stop listening, and words that say nobody hears you. */
function ListenOnly({ status, onHangUp }: { status: VoiceBrowserStatus; onHangUp(): void }) {
  return (
    <>
      <div class="call-actions">
        <HangUpButton status={status} onHangUp={onHangUp} label="Stop listening" />
      </div>
      <p class="hint" data-testid="listen-only">
        Listen only: your microphone stays off and nobody on the call hears you
      </p>
    </>
  );
}

/**
 * The phone's card, at the top on every width: the call's state in words, who it is with, its time, and only
 * the actions that apply now. An ended or failed call stays on it, in words, until the next call. A caller
 * answered from a queue is the same call here: its words say which queue it came from.
 */
export function CallCard({ status, callSeconds, recoveredFrom, digitsSent, queueName, error, onCall, onHangUp, onToggleMute, onDigit, onToggleRecording, monitored }: CallCardProps) {
  const [from, setFrom] = useState(FROM_NUMBERS[0]?.number ?? '');
  const [to, setTo] = useState('+12025550100');
  const [keypadOpen, setKeypadOpen] = useState(false);
  const mode = callCardMode(status);
  // A monitor leg is listen-only: its own words, its parties from the supervisor's list, and only Stop listening.
  const monitor = monitoredCallId(status) !== null;
  const parties = monitor ? (monitored?.parties ?? null) : partiesLabel(status, queueName);
  const unknown = unknownOutcomeLabel(status.call);
  const recovery = recoveryLabel(status, recoveredFrom);

  return (
    <section class={`call-card ${mode}`} data-call-state={status.call?.state} aria-labelledby="call-card-title" data-testid="call-card">
      <h2 id="call-card-title" class="visually-hidden">
        {mode === 'recovery' ? 'Recovered call' : 'Call'}
      </h2>
      {/* The card's words are what screen readers hear as things change: one polite live region. */}
      <p class="call-words" role="status" aria-live="polite" data-testid="call-words">
        {monitorAnnouncement(status, monitored?.agent ?? null) ?? announcementLabel(status, queueName)}
      </p>
      {(parties || status.call) && <CallMeta parties={parties} callSeconds={callSeconds} />}
      {unknown && <p data-testid="call-unknown">{unknown}</p>}
      <CallWarnings warnings={status.warnings} />
      {error}
      {mode === 'recovery' && (
        <>
          <p data-testid="recovery-words">{recovery}</p>
          <div class="call-actions">
            <HangUpButton status={status} onHangUp={onHangUp} />
          </div>
        </>
      )}
      {mode === 'in-call' && monitor && <ListenOnly status={status} onHangUp={onHangUp} />}
      {mode === 'in-call' && !monitor && (
        <CallControls
          status={status}
          digitsSent={digitsSent}
          keypadOpen={keypadOpen}
          onToggleKeypad={() => setKeypadOpen((open) => !open)}
          onHangUp={onHangUp}
          onToggleMute={onToggleMute}
          onDigit={onDigit}
          onToggleRecording={onToggleRecording}
        />
      )}
      {mode === 'dialer' && <Dialer status={status} from={from} to={to} onFrom={setFrom} onTo={setTo} onCall={onCall} onToggleMute={onToggleMute} />}
    </section>
  );
}
