import type { TimingEvent } from 'voice-browser';
import { qualityLabel } from '../call-labels.js';

export interface EventLogProps {
  timings: readonly TimingEvent[];
}

/** The onTiming milestones of connect and of each call, with the time since the operation began, and the call's quality. */
export function EventLog({ timings }: EventLogProps) {
  return (
    <section aria-label="Event log">
      <h2>Event log</h2>
      {timings.length === 0 ? (
        <p>No events yet: connect to see the milestones.</p>
      ) : (
        <ol class="log">
          {timings.map((t) => (
            <li key={`${t.name}-${t.at}-${t.callId ?? ''}`} data-testid={t.quality ? 'call-quality' : undefined}>
              <code>{t.name}</code>
              {/* A recovered call's milestones have no start in this page, so no duration. */}
              {t.sinceStartMs === undefined ? '' : ` +${t.sinceStartMs} ms`}
              {t.callId ? ` (${t.callId})` : ''}
              {t.quality ? `: ${qualityLabel(t.quality)}` : ''}
              {t.warning ? `: ${t.warning}` : ''}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
