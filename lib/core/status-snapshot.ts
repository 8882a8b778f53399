import type { VoiceBrowserStatus } from './types.js';

/** A status snapshot: the first a helper shows, and how each is frozen (by `createStatusStore` and the shared tabs). */

/** Before anything happened; a tab alone (shared tabs show their own `tabs`). */
export const INITIAL_STATUS: VoiceBrowserStatus = deepFreeze({
  connection: 'disconnected',
  session: null,
  call: null,
  attempt: null,
  busy: false,
  audio: 'none',
  muted: false,
  warnings: [],
  error: null,
  offer: null,
  availability: null,
  recording: false,
  tabs: { mode: 'independent', leader: true },
});

/** Freezes a snapshot all the way down: the page can hold it without seeing later changes. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}
