import type { Availability, Connection } from 'voice-browser';
import { availabilityLabel } from '../offer-labels.js';

/** Props of {@link AvailabilitySwitch}. */
export interface AvailabilitySwitchProps {
  /** What the server last said (`status().availability`); null until it said. */
  availability: Availability | null;
  /** The offer-mode queues' names, for the words. */
  offerQueues: readonly string[];
  /** The connection's state: before Connect nothing was read. */
  connection: Connection;
  onChange(availability: Availability): void;
}

/**
 * Available or Away for offered callers: a switch showing the server's answer, not the click (it flips once the
 * proxy said so), and a polite live line in words, so an agent set away after a caller rang out hears it.
 */
export function AvailabilitySwitch({ availability, offerQueues, connection, onChange }: AvailabilitySwitchProps) {
  const available = availability === 'available';
  return (
    <div class="availability row" data-testid="availability-switch-row">
      <button
        type="button"
        role="switch"
        class="availability-switch"
        aria-checked={available}
        aria-describedby="availability-words"
        data-testid="availability-switch"
        onClick={() => onChange(available ? 'away' : 'available')}
      >
        Available for offered callers
      </button>
      <span id="availability-words" role="status" aria-live="polite" data-testid="availability-words">
        {availabilityLabel(availability, offerQueues, connection)}
      </span>
    </div>
  );
}
