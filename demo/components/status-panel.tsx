import type { VoiceBrowserStatus } from 'voice-browser';
import { inboundQueueId } from '../call-labels.js';

export interface StatusPanelProps {
  status: VoiceBrowserStatus;
}

/** The helper's status as it reports it, raw: what a developer compares with the service's records. */
export function StatusPanel({ status }: StatusPanelProps) {
  return (
    <section aria-label="Status">
      <h2>Status</h2>
      <dl>
        <dt>connection</dt>
        <dd data-testid="connection">{status.connection}</dd>
        <dt>session</dt>
        <dd data-testid="session-id">{status.session?.id ?? '—'}</dd>
        <dt>attempt</dt>
        <dd data-testid="attempt">{status.attempt?.phase ?? '—'}</dd>
        <dt>call id</dt>
        <dd data-testid="call-id">{status.call?.id ?? '—'}</dd>
        <dt>call state</dt>
        <dd data-testid="call-state">{status.call?.state ?? '—'}</dd>
        <dt>queue</dt>
        <dd data-testid="call-queue">{inboundQueueId(status.call) ?? status.attempt?.queueId ?? '—'}</dd>
        <dt>busy</dt>
        <dd data-testid="busy">{String(status.busy)}</dd>
        <dt>audio</dt>
        <dd data-testid="audio">{status.audio}</dd>
        <dt>muted</dt>
        <dd>{String(status.muted)}</dd>
        <dt>warnings</dt>
        <dd data-testid="warnings">{status.warnings.join(' ') || '—'}</dd>
        <dt>availability</dt>
        <dd data-testid="availability">{status.availability ?? '—'}</dd>
        <dt>offer</dt>
        <dd data-testid="offer-call-id">{status.offer?.callId ?? '—'}</dd>
        <dt>tabs</dt>
        <dd data-testid="tab-role">{status.tabs.mode === 'shared' ? `shared, ${status.tabs.leader ? 'leader' : 'follower'}` : 'independent'}</dd>
        <dt>error</dt>
        <dd>{status.error?.code ?? '—'}</dd>
      </dl>
    </section>
  );
}
