/**
 * Callers on demand through the demo server (the Send a test caller buttons): whether it can make a caller
 * arrive (only with the embedded simulator), and sending one to a queue. The server asks the simulator's
 * control API; the page never reaches the simulator itself.
 */

/** What the server said: whether callers can be sent, and to which queues (ids and names). */
export interface CallersOffer {
  available: boolean;
  queues: ReadonlyArray<{ id: string; name: string }>;
}

/** A caller the simulator made: its call id and number. */
export interface SentCaller {
  id: string;
  from: string;
}

/** `GET /demo/callers`; a failed read is "not available": the control only shows when the server said yes. */
export async function readCallersOffer(): Promise<CallersOffer> {
  const response = await fetch('/demo/callers', { credentials: 'same-origin' }).catch(() => null);
  const body = (await response?.json().catch(() => null)) as Partial<CallersOffer> | null;
  return response?.ok && body?.available === true && Array.isArray(body.queues) ? { available: true, queues: body.queues } : { available: false, queues: [] };
}

/** `POST /demo/callers {queue}`: the caller made, or an Error whose message says what the server answered. */
export async function sendCaller(queueId: string): Promise<SentCaller> {
  const response = await fetch('/demo/callers', { method: 'POST', credentials: 'same-origin', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queue: queueId }) });
  const body = (await response.json().catch(() => null)) as { call?: SentCaller; code?: string; error?: string } | null;
  if (response.status !== 201 || !body?.call) throw new Error(`${body?.code ?? response.status}${body?.error ? `: ${body.error}` : ''}`);
  return body.call;
}
