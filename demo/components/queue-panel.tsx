import type { ComponentChildren } from 'preact';
import type { Availability, VoiceBrowserStatus } from 'voice-browser';
import { durationLabel } from '../call-labels.js';
import type { QueueRow } from '../models/queue-rows.js';
import { isOfferQueue, OFFER_QUEUE_HINT } from '../offer-labels.js';
import { callerNoteLabel, canAnswerNext, queueSummaryLabel, sendCallerLabel, waitingListName, type CallerNote } from '../queue-labels.js';
import { AvailabilitySwitch } from './availability-switch.js';

/** Props of {@link QueuePanel}. */
export interface QueuePanelProps {
  status: VoiceBrowserStatus;
  rows: readonly QueueRow[];
  /** Why the list of queues could not be read, or null. */
  listError: string | null;
  /** The error of an Answer next, when it belongs here (see `errorArea`, the demo's labels). */
  error: ComponentChildren;
  onAnswerNext(queueId: string): void;
  onAvailability(availability: Availability): void;
  /** Test callers on demand: only when the server said it can send them (the embedded simulator); else null. */
  callers: { note: CallerNote | null; onSend(queueId: string, queueName: string): void } | null;
}

/** One queue: its name, its waiting callers with their live wait time, and Answer next. */
function QueueBlock({ status, row, onAnswerNext, onSendCaller }: { status: VoiceBrowserStatus; row: QueueRow; onAnswerNext(queueId: string): void; onSendCaller: ((queueId: string, queueName: string) => void) | null }) {
  const titleId = `queue-${row.id}-title`;
  return (
    <div class="queue" data-testid="queue" data-queue-id={row.id} data-queue-name={row.name}>
      <h3 id={titleId}>{row.name}</h3>
      {isOfferQueue(row.name) && (
        <p class="hint" data-testid="queue-mode">
          {OFFER_QUEUE_HINT}
        </p>
      )}
      {row.callers.length === 0 ? (
        <p class="hint" data-testid="queue-empty">
          Nobody waiting
        </p>
      ) : (
        <ul class="queue-callers" aria-label={waitingListName(row.name)}>
          {row.callers.map((caller) => (
            <li key={caller.callId} data-testid="queue-caller" data-call-id={caller.callId}>
              <span data-testid="caller-number">{caller.from}</span>
              <span class="wait">
                <span class="visually-hidden">waiting </span>
                <span data-testid="wait-time">{durationLabel(caller.waitSeconds)}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
      <button type="button" onClick={() => onAnswerNext(row.id)} disabled={!canAnswerNext(status, row.callers.length)}>
        Answer next<span class="visually-hidden"> in {row.name}</span>
      </button>
      {onSendCaller && (
        <button type="button" class="secondary" data-testid="send-caller" onClick={() => onSendCaller(row.id, row.name)}>
          {sendCallerLabel(row.name)}
        </button>
      )}
    </div>
  );
}

/**
 * The support desk: each of the user's queues with the callers waiting there, oldest first, each with a wait time
 * that counts up, and Answer next, which takes the head caller onto the call card. Enabled only while ready
 * and idle with someone waiting. Who waits is said in one polite live line, so arrivals and departures are heard.
 * With an offer-mode queue listed, the availability switch says whether its callers ring this page.
 */
export function QueuePanel({ status, rows, listError, error, onAnswerNext, onAvailability, callers }: QueuePanelProps) {
  const offerQueues = rows.map((row) => row.name).filter(isOfferQueue);
  return (
    <section class="queues" aria-labelledby="queues-title" data-testid="queue-panel">
      <h2 id="queues-title">Queues</h2>
      {offerQueues.length > 0 && <AvailabilitySwitch availability={status.availability} offerQueues={offerQueues} connection={status.connection} onChange={onAvailability} />}
      <p class="queue-summary" role="status" aria-live="polite" data-testid="queue-summary">
        {queueSummaryLabel(rows)}
      </p>
      {listError && (
        <p class="hint" data-testid="queue-list-error">
          {listError}
        </p>
      )}
      {rows.map((row) => (
        <QueueBlock key={row.id} status={status} row={row} onAnswerNext={onAnswerNext} onSendCaller={callers?.onSend ?? null} />
      ))}
      {callers?.note && (
        <p class="hint" data-testid="caller-note">
          {callerNoteLabel(callers.note)}
        </p>
      )}
      {error}
    </section>
  );
}
