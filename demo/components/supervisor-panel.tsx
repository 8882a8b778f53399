import { canAnswerNext, type VoiceBrowserStatus } from 'voice-browser';
import { durationLabel } from '../call-labels.js';
import type { RecordingsView } from '../models/use-supervision.js';
import { recordingAudioUrl } from '../supervision-api.js';
import { agentLabel, recordingLabel, supervisedPartiesLabel, supervisedSeconds, supervisedStateLabel, type SupervisedRow } from '../supervision-labels.js';

/** Props of {@link SupervisorPanel}. */
export interface SupervisorPanelProps {
  status: VoiceBrowserStatus;
  rows: readonly SupervisedRow[];
  /** Why the last read of the calls failed, or null. */
  listError: string | null;
  /** Now, as epoch ms (the calls' durations). */
  now: number;
  recordings: Readonly<Record<string, RecordingsView>>;
  onListen(callId: string): void;
  onRecordings(callId: string): void;
}

/** A call's recordings: each with a player and a download link; one still recording has neither yet. */
function RecordingList({ view, agent }: { view: RecordingsView | undefined; agent: string }) {
  if (!view) return null;
  if (view.state === 'loading') return <p class="hint">Reading the recordings…</p>;
  if (view.state === 'failed') return <p class="hint" data-testid="recordings-error">{view.error}</p>;
  if (view.recordings.length === 0) return <p class="hint" data-testid="no-recordings">No recordings of this call</p>;
  return (
    <ul class="recordings" aria-label={`Recordings of ${agent}'s call`}>
      {view.recordings.map((recording, index) => {
        const label = recordingLabel(recording, index);
        return (
          <li key={recording.id} data-testid="recording-item" data-recording-id={recording.id}>
            <span>{label}</span>
            {recording.state !== 'recording' && (
              <>
                <audio controls preload="none" src={recordingAudioUrl(recording.id)} aria-label={label} />
                <a href={recordingAudioUrl(recording.id)} download={`${recording.id}.wav`}>
                  Download<span class="visually-hidden"> {label}</span>
                </a>
              </>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** One supervised call: its agent, parties, state and time, Listen in, and its recordings on demand. */
function SupervisedCallRow({ row, status, now, view, onListen, onRecordings }: { row: SupervisedRow; status: VoiceBrowserStatus; now: number; view: RecordingsView | undefined } & Pick<SupervisorPanelProps, 'onListen' | 'onRecordings'>) {
  const agent = agentLabel(row.agent);
  const seconds = row.inProgress ? supervisedSeconds(row.call, now) : null;
  return (
    <li class="supervised-call" data-testid="supervised-call" data-call-id={row.call.id}>
      <p>
        <strong data-testid="supervised-agent">{agent}</strong> <span>{supervisedPartiesLabel(row.call)}</span>
      </p>
      <p>
        <span data-testid="supervised-state">{supervisedStateLabel(row)}</span>
        {seconds !== null && (
          <span class="timer">
            <span class="visually-hidden"> for </span>
            <span data-testid="supervised-time">{durationLabel(seconds)}</span>
          </span>
        )}
      </p>
      <div class="call-actions">
        <button type="button" disabled={!row.inProgress || !canAnswerNext(status)} onClick={() => onListen(row.call.id)}>
          Listen in<span class="visually-hidden"> to {agent}</span>
        </button>
        <button type="button" class="secondary" onClick={() => onRecordings(row.call.id)}>
          Recordings<span class="visually-hidden"> of {agent}'s call</span>
        </button>
      </div>
      <RecordingList view={view} agent={agent} />
    </li>
  );
}

/**
 * A supervisor's view: the calls in progress of their agents (read again every few seconds; the ones that
 * ended since stay below, marked ended), Listen in, which puts a listen-only leg on the call card, and each
 * call's recordings with a player.
 */
export function SupervisorPanel({ status, rows, listError, now, recordings, onListen, onRecordings }: SupervisorPanelProps) {
  return (
    <section class="supervision" aria-labelledby="supervision-title" data-testid="supervisor-panel">
      <h2 id="supervision-title">Your agents' calls</h2>
      {listError && <p class="hint" data-testid="supervision-error">{listError}</p>}
      {rows.length === 0 ? (
        <p class="hint" data-testid="no-supervised-calls">
          No calls in progress
        </p>
      ) : (
        <ul class="supervised-calls" aria-label="Calls of your agents">
          {rows.map((row) => (
            <SupervisedCallRow key={row.call.id} row={row} status={status} now={now} view={recordings[row.call.id]} onListen={onListen} onRecordings={onRecordings} />
          ))}
        </ul>
      )}
    </section>
  );
}
