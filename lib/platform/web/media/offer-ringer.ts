import type { Clock } from '../../../core/clock.js';
import type { VoiceBackend } from '../../../core/backend-types.js';
import type { CallEvent } from '../../../core/machines/call-machine.js';
import type { VoiceBrowserOptions } from '../../../core/helper-types.js';
import { silent, transition, type RingEffect, type RingEvent, type RingState } from '../../../core/machines/offer-ring.js';
import { notify, playTone } from './ring-tone.js';
import type { VoiceBrowserStatus } from '../../../core/types.js';

/**
 * Rings an offered caller (DESIGN.md, "Support desks"): it follows `status().offer` and runs what the ring's
 * machine decides: the tone and notification (`playTone`, `notify`), the wait for an answer on the clock,
 * the read of the offered call for its queue, and once an offer rang out for `offers.ringMs`, its decline and the
 * agent said away. Part of the SIP chunk: only a registered page is offered.
 */

/**
 * What the ringer is given: the clock, the backend that reads an offered call, where what it learns goes (events
 * into the loop), the connection's lifetime, and setAvailability(), which says the agent away after an offer rang
 * out.
 */
export interface OfferPorts {
  clock: Clock;
  backend: VoiceBackend;
  dispatch(event: CallEvent): void;
  signal(): AbortSignal;
  setAvailability(availability: 'away'): Promise<void>;
}

/** The status watcher that rings: it feeds the ring's machine the offer shown, and runs what it decides. */
export function createOfferRinger(ports: OfferPorts, options: VoiceBrowserOptions): (status: VoiceBrowserStatus) => void {
  const ringMs = options.offers?.ringMs ?? 15_000;
  let state: RingState = silent;
  let tone: { close(): void } | undefined;
  let notice: { close(): void } | undefined;
  let timer: unknown;
  const feed = (event: RingEvent) => {
    const [next, effects] = transition(state, event);
    state = next;
    for (const effect of effects) run(effect);
  };
  /** The interpreter: each effect the ring decided. */
  const run = (effect: RingEffect): void => {
    switch (effect.type) {
      case 'ring':
        tone = playTone(options.audioDevices?.speakerId, ringMs);
        notice = options.offers?.notify ? notify(effect.offer) : undefined;
        return;
      case 'time_out':
        timer = ports.clock.setTimeout(() => feed({ type: 'rang_out', callId: effect.callId }), ringMs);
        return;
      case 'stop':
        tone?.close();
        notice?.close();
        return ports.clock.clearTimeout(timer);
      case 'read_offer':
        return void ports.backend.getQueueCall?.(effect.callId, { signal: ports.signal() }).then(
          ({ call }) => ports.dispatch({ type: 'offer_read', callId: call.id, queueId: call.queueId }),
          () => undefined,
        );
      case 'decline':
        return ports.dispatch({ type: 'offer_declined' });
      case 'say_away':
        return void ports.setAvailability('away').catch(() => undefined);
    }
  };
  return ({ offer }) => feed({ type: 'offer_shown', offer });
}
