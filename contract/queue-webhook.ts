import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The queue webhook of spec 6.1, both ends of it: the service (the simulator) serializes and signs an event, the
 * integrator's server (the proxy) verifies it. One POST with a JSON body whose keys are in sorted order; with a
 * `notifySecret`, header `X-Service-Signature` carries the hex HMAC-SHA256 of the exact raw body keyed by it,
 * compared in constant time; without one, no header. The signature carries no timestamp: a replay verifies, so
 * receivers dedupe on `callId` plus `event`.
 */

/** The header the signature travels in (spec 6.1). */
export const SIGNATURE_HEADER = 'X-Service-Signature';

/** The events spec 6.1 names. */
export type QueueEventName = 'call.received' | 'call.ended';

/** A webhook's body fields (spec 6.1). */
export interface QueueEvent {
  event: QueueEventName;
  callId: string;
  queueId: string;
  /** The caller, E.164. */
  from: string;
  /** The number dialled, E.164. */
  to: string;
  /** The call's state when the event was emitted (spec 3.1). */
  state: string;
}

/** The raw body as the service sends it: JSON with its keys in sorted order. */
export function serializeEvent(event: QueueEvent): string {
  const sorted = Object.fromEntries(Object.entries(event).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return JSON.stringify(sorted);
}

/** The `X-Service-Signature` of `rawBody`: lowercase hex HMAC-SHA256 keyed by the queue's secret. */
export function signBody(rawBody: string, secret: string): string {
  return createHmac('sha256', secret).update(rawBody, 'utf8').digest('hex');
}

/**
 * Whether `signature` (the header as received, absent or not) is `rawBody`'s under `secret`, compared in
 * constant time over the digest's bytes. Anything but 64 hex digits is false without a comparison, as its
 * length says nothing of the secret.
 */
export function verifySignature(rawBody: string, signature: string | null | undefined, secret: string): boolean {
  if (!signature || !/^[0-9a-fA-F]{64}$/.test(signature)) return false;
  const expected = createHmac('sha256', secret).update(rawBody, 'utf8').digest();
  return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
}

/** The headers of a webhook POST: its content type, and its signature when the queue has a secret. */
export function webhookHeaders(rawBody: string, secret: string | undefined): Record<string, string> {
  return { 'content-type': 'application/json', ...(secret ? { [SIGNATURE_HEADER]: signBody(rawBody, secret) } : {}) };
}
