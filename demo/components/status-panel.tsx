import type { TimingEvent, VoiceBrowserStatus } from '../../lib/index.js';
import { callLabel, connectionLabel } from '../labels.js';

export interface StatusPanelProps {
  status: VoiceBrowserStatus;
  timings: TimingEvent[];
  actionError: string | null;
}

/** The live status: connection, call state and busy, as the helper reports them. */
export function StatusPanel({ status, timings, actionError }: StatusPanelProps) {
  const error = status.error;
  return (
    <section aria-label="Status">
      <dl>
        <dt>connection</dt>
        <dd data-testid="connection" title={connectionLabel(status.connection)}>{status.connection}</dd>
        <dt>call state</dt>
        <dd data-testid="call-state">{callLabel(status)}</dd>
        <dt>busy</dt>
        <dd data-testid="busy">{String(status.busy)}</dd>
        <dt>call id</dt>
        <dd data-testid="call-id">{status.call?.id ?? '—'}</dd>
        <dt>audio</dt>
        <dd data-testid="audio">{status.audio}</dd>
      </dl>
      {error && (
        <p class="error" role="alert" data-testid="error-code">
          {error.code}: {error.message}
        </p>
      )}
      {actionError && !error && <p class="error" role="alert">{actionError}</p>}
      {timings.length > 0 && (
        <ol aria-label="Timings">
          {timings.map((t) => (
            <li key={`${t.name}-${t.at}`}>
              {t.name} {t.callId ? `(${t.callId}) ` : ''}+{t.sinceStartMs} ms
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
