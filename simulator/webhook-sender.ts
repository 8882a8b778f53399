import { serializeEvent, webhookHeaders, type QueueEvent } from '../contract/queue-webhook.js';

/**
 * Delivery of a queue's webhooks (spec 6.1): one POST of the sorted-key JSON body, signed when the queue has a
 * secret, a single attempt with a 5-second timeout, no retry and no ledger. Here it only ever goes to a loopback
 * address: queues.ts refuses any other `notifyUrl`.
 */

/** spec 6.1: one attempt, 5 s. */
export const WEBHOOK_TIMEOUT_MS = 5000;

/** How one delivery went: the receiver's status, or why there was none. */
export type Delivery = { status: number } | { error: string };

/** Posts `event` to `url`; resolves with how it went, never rejects (best effort, spec 6.1). */
export async function deliverWebhook(url: string, secret: string | undefined, event: QueueEvent): Promise<Delivery> {
  const body = serializeEvent(event);
  try {
    const response = await fetch(url, { method: 'POST', headers: webhookHeaders(body, secret), body, signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS), redirect: 'manual' });
    await response.body?.cancel();
    return { status: response.status };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}
