import type { Availability, Connection, Offer } from 'voice-browser';

/**
 * The words of offered callers (the proxy's offer mode: a queue's head caller rings the longest-idle agent) and the
 * ringing card's keyboard shortcuts, as pure functions (tested directly in the demo's unit tests).
 */

/**
 * The demo's queue in offer mode, by name: the demo server puts it there (its `DEMO_OFFER_QUEUE_NAME`), and the
 * page, which the proxy does not tell, names it the same (a unit test holds the two to one name).
 */
export const OFFER_QUEUE_NAMES: readonly string[] = ['Sales'];

/** Whether the queue named `name` rings its callers at available agents, rather than waiting for Answer next. */
export function isOfferQueue(name: string): boolean {
  return OFFER_QUEUE_NAMES.includes(name);
}

/** The hint under an offer-mode queue's name: how its callers reach an agent. */
export const OFFER_QUEUE_HINT = 'Callers here ring the longest-idle available agent';

/** Connection states in which the helper has not read the agent's availability yet: it reads it once connected. */
const NOT_READ_YET: ReadonlySet<Connection> = new Set<Connection>(['disconnected', 'connecting', 'recovery_required']);

/**
 * The availability line: what the server last said, and what it means for this page. Without its word the line
 * says only what is proven: before Connect nothing was read; once connected, the server has not said (its read
 * is under way, or failed: the helper does not tell the two apart), and the switch sets it. Never "checking".
 * `queues` are the offer-mode queues' names the page lists.
 */
export function availabilityLabel(availability: Availability | null, queues: readonly string[], connection: Connection): string {
  const which = queues.length > 0 ? `${queues.join(' and ')} callers` : 'offered callers';
  if (availability === 'available') return `Available: ${which} ring this page`;
  if (availability === 'away') return `Away: ${which} are not offered to you`;
  if (NOT_READ_YET.has(connection)) return `Not read yet: Connect to learn whether ${which} ring this page, or use the switch to say`;
  return `Not known: the server has not said whether ${which} ring this page; use the switch to say`;
}

/** The one alert screen readers hear when a caller rings: who, from where when known, and the keys that answer. */
export function offerAlertLabel(offer: Offer, queueName: string | null): string {
  const from = queueName ? ` from the ${queueName} queue` : '';
  return `Caller ${offer.caller}${from} is ringing. Press A to accept or D to decline.`;
}

/** Whole seconds an offer has rung at `now` (both on the page's clock); never negative. */
export function ringSeconds(offer: Offer, now: number): number {
  return Math.max(0, Math.floor((now - offer.since) / 1000));
}

/**
 * The helper's `offers` option: its default ring time, unless the page's address asks for another with
 * `?ringMs=` (the e2e suite lets an offer ring out quickly that way, as an absent agent's would).
 */
export function offerOptions(query: URLSearchParams): { ringMs?: number } {
  const ringMs = Number(query.get('ringMs'));
  return Number.isInteger(ringMs) && ringMs > 0 ? { ringMs } : {};
}

/** What a key press does on the ringing card. */
export type OfferKey = 'accept' | 'decline';

/** A key press as the shortcuts read it: the key, its modifiers, and where the focus was. */
export interface KeyPress {
  key: string;
  altKey: boolean;
  ctrlKey: boolean;
  metaKey: boolean;
  /** The focused element's tag name, upper case as the DOM gives it, and whether it is editable. */
  target: { tagName: string; isContentEditable: boolean } | null;
}

/** Elements where a letter is text being typed, never a shortcut. */
const TEXT_FIELDS = new Set(['INPUT', 'TEXTAREA', 'SELECT']);

/** A or D, with no modifier and the focus outside a text field, accepts or declines; anything else is left alone. */
export function offerKey(press: KeyPress): OfferKey | null {
  if (press.altKey || press.ctrlKey || press.metaKey) return null;
  if (press.target && (TEXT_FIELDS.has(press.target.tagName) || press.target.isContentEditable)) return null;
  const key = press.key.toLowerCase();
  return key === 'a' ? 'accept' : key === 'd' ? 'decline' : null;
}
