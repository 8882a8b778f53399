import { serializeEvent, webhookHeaders, type QueueEvent } from '../../contract/queue-webhook.js';

/**
 * Delivery of a queue's webhooks (spec 6.1): one POST of the sorted-key JSON body, signed when the queue has a
 * secret, a single attempt with a 5-second timeout, no retry and no ledger. Here it only ever goes to a loopback
 * address: `QueueDesk` refuses any other `notifyUrl`.
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

/** Where the webhook faults come from (`FaultPlan`: `drop-webhook`, `delay-webhook`). */
export interface WebhookFaultSource {
  takeWebhook(event: string, queueId: string): { fault: 'drop-webhook' } | { fault: 'delay-webhook'; delayMs: number } | undefined;
}

/** The service's webhook delivery with the armed faults applied, and what stops the late ones still waiting. */
export interface WebhookDelivery {
  /** Sends `event` now, never, or late, as the first matching fault says; returns at once (best effort). */
  send(url: string, secret: string | undefined, event: QueueEvent): void;
  /** Forgets every late webhook not yet sent (simulator reset and close). */
  cancelLate(): void;
}

/**
 * Delivers through `deliver` (default {@link deliverWebhook}), with `faults` applied: a dropped webhook is never
 * sent, a delayed one is sent `delayMs` later, its body as it stood when emitted.
 */
export function createWebhookDelivery(faults: WebhookFaultSource | undefined, deliver: typeof deliverWebhook = deliverWebhook): WebhookDelivery {
  const late = new Set<ReturnType<typeof setTimeout>>();
  return {
    send(url, secret, event) {
      const fault = faults?.takeWebhook(event.event, event.queueId);
      if (fault?.fault === 'drop-webhook') return;
      if (fault?.fault !== 'delay-webhook') return void deliver(url, secret, event);
      const timer = setTimeout(() => {
        late.delete(timer);
        void deliver(url, secret, event);
      }, fault.delayMs);
      timer.unref?.();
      late.add(timer);
    },
    cancelLate() {
      for (const timer of late) clearTimeout(timer);
      late.clear();
    },
  };
}
