import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError } from '../../contract/http-error.js';
import { SIGNATURE_HEADER, verifySignature } from '../../contract/queue-webhook.js';
import { withinDeadline } from '../time/deadline.js';
import { isResourceId } from '../access/ownership.js';
import type { QueueEventBus, QueueUpdate } from '../desk/queue-events.js';
import type { Clock } from '../time/clock.js';

/**
 * `POST /queue-events`: the queue's `notifyUrl`, where the service posts `call.received` and `call.ended`
 * (spec 6.1). The signature is checked over the exact raw bytes before anything is parsed; a verified event
 * is published once on the bus, however often it is replayed and whichever replica it reaches, and the
 * service gets its `204` at once (spec 6.1: one attempt, 5 s).
 */

/** How long a webhook's `callId` plus `event` is remembered, so a replay within it is dropped. */
export const DEDUPE_TTL_SECONDS = 24 * 60 * 60;

/** The longest the answer waits for the dedupe and the publish before it goes anyway. */
const ACCEPT_DEADLINE_MS = 2000;

const id = z.string().refine(isResourceId, 'must be an id');
const field = z.string().min(1).max(64);

/** spec 6.1's body; fields the service may add later are let through and not read. */
const webhookBody = z.object({ event: z.enum(['call.received', 'call.ended']), callId: id, queueId: id, from: field, to: field, state: field });

type Webhook = z.infer<typeof webhookBody>;

/** Bytes that are not UTF-8 cannot be what the service signed: refused, never repaired into other bytes. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const refused = () => new HttpError(401, 'invalid_signature', `the body is not signed with the queue's notifySecret (${SIGNATURE_HEADER})`);

/** What the receiver works through. */
export interface ReceiverParts {
  notifySecret: string;
  events: QueueEventBus;
  log: (line: string) => void;
  headers: Readonly<Record<string, string>>;
  clock: Clock;
}

/** The raw body, as text only when its signature is right; anything else is the one `401`. */
async function verifiedBody(c: Context, secret: string): Promise<string> {
  const bytes = new Uint8Array(await c.req.raw.arrayBuffer());
  let raw: string;
  try {
    raw = utf8.decode(bytes);
  } catch {
    throw refused();
  }
  if (!verifySignature(raw, c.req.header(SIGNATURE_HEADER), secret)) throw refused();
  return raw;
}

/** The verified body as an event, or `400 invalid_event`. */
function parseWebhook(raw: string): Webhook {
  let body: unknown;
  try {
    body = JSON.parse(raw) as unknown;
  } catch {
    throw new HttpError(400, 'invalid_event', 'the body is not JSON');
  }
  const parsed = webhookBody.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, 'invalid_event', issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'not a queue event');
}

/** The update a webhook becomes: a new caller waits since now, the receipt. */
function updateOf(webhook: Webhook, receivedAt: string): QueueUpdate {
  const { callId, queueId, from, to, state } = webhook;
  return webhook.event === 'call.received' ? { event: 'call.received', callId, queueId, from, to, since: receivedAt } : { event: 'call.ended', callId, queueId, state };
}

/** Publishes `webhook` unless it was seen before (spec 6.1: consumers dedupe on `callId` plus `event`). */
async function accept({ events }: ReceiverParts, webhook: Webhook, receivedAt: string): Promise<void> {
  if (!(await events.firstSeen(`${webhook.event}:${webhook.callId}`, DEDUPE_TTL_SECONDS))) return;
  await events.publish(updateOf(webhook, receivedAt));
}

/** `POST /queue-events`. */
export async function receiveWebhook(parts: ReceiverParts, c: Context): Promise<Response> {
  const receivedAt = new Date(parts.clock.now()).toISOString();
  const webhook = parseWebhook(await verifiedBody(c, parts.notifySecret));
  // The service does not retry (spec 6.1), so a failure here has nobody to tell but the log.
  const failed = (error: unknown) => parts.log(`voice proxy: a queue webhook (${webhook.event}) could not be passed on (${error instanceof Error ? error.message : String(error)})`);
  const late = () => parts.log(`voice proxy: a queue webhook (${webhook.event}) is still being passed on after ${ACCEPT_DEADLINE_MS} ms; answered anyway`);
  await withinDeadline(accept(parts, webhook, receivedAt).catch(failed), ACCEPT_DEADLINE_MS, late, parts.clock);
  return new Response(null, { status: 204, headers: { ...parts.headers, 'Cache-Control': 'no-store' } });
}
