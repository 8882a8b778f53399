import type { Availability, StatusError } from '../types.js';

/**
 * What the status shows that neither the connection, the call nor the media decides, as a pure function beside
 * their machines: `transition(state, event) -> [state, effects]`. The mute wish (spec 4.9: it holds across
 * calls), the availability the service last said, and the error of a refused input or of a request that changed
 * no state. Through it the loop's dispatch stays the status's one writer.
 */

export interface SettingsSlice {
  muted: boolean;
  availability: Availability | null;
}

export type SettingsEvent =
  /** mute() took the wish: the link applies it to the call now and to later ones. */
  | { type: 'mute_set'; muted: boolean }
  /** The service said the agent's availability, answering a read or setAvailability(). */
  | { type: 'availability_read'; availability: Availability }
  /** A method refused its input or its moment, or its request failed and changed no state: the error shows. */
  | { type: 'refused'; error: StatusError };

export type SettingsEffect = { type: 'report'; error: StatusError };

export const noSettings: SettingsSlice = { muted: false, availability: null };

/**
 * Each move is a new slice even when a value repeats: every such word of the page is shown again, and
 * `onStatus` hears it.
 */
export function transition(state: SettingsSlice, event: SettingsEvent): [SettingsSlice, SettingsEffect[]] {
  switch (event.type) {
    case 'mute_set':
      return [{ ...state, muted: event.muted }, []];
    case 'availability_read':
      return [{ ...state, availability: event.availability }, []];
    case 'refused':
      return [state, [{ type: 'report', error: event.error }]];
    default:
      return [state, []];
  }
}
