import type { Offer } from '../types.js';

/**
 * The offer's ring as a pure function: `transition(state, event) -> [state, effects]`. It follows
 * `status().offer` (spec: a queue's caller offered to this idle agent rings until accepted, declined or
 * withdrawn): a new offer rings, is read for its queue and is timed; an offer gone stops the ring; an offer
 * left ringing until its time is up is declined and the agent said away, so an absent agent is not offered
 * caller after caller. It reads no clock and plays nothing: the ringer runs its effects.
 *
 * ```
 *            an offer shown                 another offer shown
 *  silent ─────────────────▶ ringing ◀──────────────────────────┐ (stop, then ring the new one)
 *     ▲                        │ └──────────────────────────────┘
 *     └──no offer shown────────┤
 *                              └──rang out: declined, the agent away (the offer then goes: silent)
 * ```
 */

/** The offer ringing now, by its call id; none when silent. */
export interface RingState {
  ringing: string | undefined;
}

export type RingEvent =
  /** The status changed: the offer it shows now, if any. */
  | { type: 'offer_shown'; offer: Offer | null }
  /** The offer `callId` rang for as long as an offer may: nobody answered it. */
  | { type: 'rang_out'; callId: string };

export type RingEffect =
  /** Rings: a tone of the page's own, and a desktop notification where the page asked for them. */
  | { type: 'ring'; offer: Offer }
  /** Starts the wait for an answer, after which the offer `callId` rang out. */
  | { type: 'time_out'; callId: string }
  /** Stops the ring and its wait. */
  | { type: 'stop' }
  /** Reads the offered call, for its queue (`offer_read`). */
  | { type: 'read_offer'; callId: string }
  /** Declines the offer (`offer_declined`): its INVITE is refused, and the service offers the caller to another agent. */
  | { type: 'decline' }
  /** Says the agent away (`setAvailability('away')`). */
  | { type: 'say_away' };

/** Nothing rings. */
export const silent: RingState = { ringing: undefined };

/** The ring's move for the event: a new offer rings (the last one stopped first), none stops it, the same one goes on. */
export function transition(state: RingState, event: RingEvent): [RingState, RingEffect[]] {
  if (event.type === 'rang_out') return [state, event.callId === state.ringing ? [{ type: 'decline' }, { type: 'say_away' }] : []];
  const { offer } = event;
  if (offer?.callId === state.ringing) return [state, []];
  const stop: RingEffect[] = state.ringing ? [{ type: 'stop' }] : [];
  if (!offer) return [silent, stop];
  return [{ ringing: offer.callId }, [...stop, { type: 'ring', offer }, { type: 'time_out', callId: offer.callId }, { type: 'read_offer', callId: offer.callId }]];
}
