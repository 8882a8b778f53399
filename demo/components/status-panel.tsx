import type { VoiceBrowserStatus } from '../../lib/index.js';
import { callLabel, connectionLabel, durationLabel, endLabel, unknownOutcomeLabel } from '../labels.js';

export interface StatusPanelProps {
  status: VoiceBrowserStatus;
  /** Seconds connected, or null before the answer. */
  callSeconds: number | null;
}

/** The live status: connection, call state and busy, as the helper reports them; an unknown outcome and an end in words. */
export function StatusPanel({ status, callSeconds }: StatusPanelProps) {
  const ended = endLabel(status.call);
  const unknown = unknownOutcomeLabel(status.call);
  return (
    <section aria-label="Status">
      <dl>
        <dt>connection</dt>
        <dd data-testid="connection" title={connectionLabel(status.connection)}>
          {status.connection}
        </dd>
        <dt>session</dt>
        <dd data-testid="session-id">{status.session?.id ?? '—'}</dd>
        <dt>call state</dt>
        <dd data-testid="call-state">{callLabel(status)}</dd>
        <dt>call time</dt>
        <dd data-testid="call-time">{durationLabel(callSeconds)}</dd>
        <dt>busy</dt>
        <dd data-testid="busy">{String(status.busy)}</dd>
        <dt>call id</dt>
        <dd data-testid="call-id">{status.call?.id ?? '—'}</dd>
        <dt>audio</dt>
        <dd data-testid="audio">{status.audio}</dd>
        <dt>muted</dt>
        <dd>{String(status.muted)}</dd>
      </dl>
      {unknown && <p data-testid="call-unknown">{unknown}</p>}
      {ended && <p data-testid="call-end">{ended}</p>}
    </section>
  );
}
