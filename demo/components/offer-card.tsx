import type { ComponentChildren } from 'preact';
import type { Offer } from 'voice-browser';
import { durationLabel } from '../call-labels.js';
import { offerAlertLabel, ringSeconds } from '../offer-labels.js';
import { useOfferKeys } from '../models/use-offer-keys.js';
import { useSecondTick } from '../models/use-second-tick.js';

/** Props of {@link OfferCard}. */
export interface OfferCardProps {
  offer: Offer;
  /** The offered caller's queue by name, once the helper read it; null before. */
  queueName: string | null;
  /** The error of an Accept or Decline, when it belongs here (see `errorArea`, the demo's labels). */
  error: ComponentChildren;
  onAccept(): void;
  onDecline(): void;
}

/**
 * A queue's caller ringing this agent (`status().offer`), in place of the call card until it is taken: who, from
 * which queue, how long it has rung, and Accept or Decline, also on the keyboard (A, D). Its arrival is one alert
 * for screen readers; the ring time ticks outside it, so it is not read out every second. Accept leads to the
 * usual call card; Decline sends the caller to the next agent.
 */
export function OfferCard({ offer, queueName, error, onAccept, onDecline }: OfferCardProps) {
  const now = useSecondTick(true);
  useOfferKeys(true, (key) => (key === 'accept' ? onAccept() : onDecline()));
  return (
    <section class="call-card offer-card" aria-labelledby="offer-card-title" data-testid="offer-card" data-call-id={offer.callId}>
      <h2 id="offer-card-title" class="visually-hidden">
        Caller ringing
      </h2>
      <p class="call-words" role="alert" data-testid="offer-words">
        {offerAlertLabel(offer, queueName)}
      </p>
      <p class="call-meta">
        <span>
          <span data-testid="offer-caller">{offer.caller}</span>
          {queueName && <span data-testid="offer-queue"> ({queueName} queue)</span>}
        </span>
        <span class="timer">
          <span class="visually-hidden">ringing for </span>
          <span data-testid="offer-ring-time">{durationLabel(ringSeconds(offer, now))}</span>
        </span>
      </p>
      {error}
      <div class="call-actions">
        <button type="button" class="accept" onClick={onAccept} aria-keyshortcuts="A">
          Accept
        </button>
        <button type="button" class="decline" onClick={onDecline} aria-keyshortcuts="D">
          Decline
        </button>
      </div>
      <p class="hint" data-testid="offer-keys">
        Keyboard: <kbd>A</kbd> accepts, <kbd>D</kbd> declines (while not typing in a field).
      </p>
    </section>
  );
}
