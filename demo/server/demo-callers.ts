import { randomInt } from 'node:crypto';
import { Hono } from 'hono';
import { z } from 'zod';
import { HttpError, noStore, onHttpError } from '../../contract/http-error.js';
import { e164, readJsonBody } from '../../contract/voice-input.js';
import { refuseCrossSite } from '../../server-proxy/access/cross-site.js';
import type { ProxyUser } from '../../server-proxy/setup/proxy.js';

/**
 * Callers on demand, for `npm start` with its embedded simulator: the demo page asks its own server to make a
 * caller arrive in one of the demo's queues, and the server asks the simulator's control API
 * (`POST /__sim/inbound`). Through the demo server, not from the page: the control API has no CORS and needs
 * none, and the page never learns the simulator's control address. With a real service (VOICE_BASE_URL) there is
 * nobody to act a caller: the routes say so, and the page shows no control.
 */

/** A demo queue a caller may be sent to. */
export interface DemoCallerQueue {
  id: string;
  name: string;
}

/** Options of {@link createDemoCallers}. */
export interface DemoCallersOptions {
  /** The embedded simulator's address (its control API is under `/__sim`); absent with a real service. */
  simulatorUrl?: string;
  /** The demo's queues, by id and name. */
  queues: readonly DemoCallerQueue[];
  /** Who is logged in: only a demo user may send a caller. */
  authenticate(request: Request): Promise<ProxyUser | null>;
  fetch?: typeof fetch;
}

/** The number the demo's callers dial: the desk's line, one of the simulator's 555 numbers. */
export const DEMO_LINE = '+12025550150';

/** A caller's number: `from` as given, or one of 555-0100 to 555-0199 in San Francisco's 415, at random. */
const callerNumber = () => `+1415555${String(100 + randomInt(100)).padStart(4, '0')}`;

/** `POST /demo/callers`: the queue, by id or name, and the caller's number if the page chose one. */
const sendInput = z.strictObject({ queue: z.string().min(1, 'must name a demo queue'), from: e164.optional() });

/** The queue `reference` names, by id or name, among the demo's; a 404 naming them when none. */
function demoQueue(queues: readonly DemoCallerQueue[], reference: string): DemoCallerQueue {
  const queue = queues.find((candidate) => candidate.id === reference || candidate.name === reference);
  if (queue) return queue;
  throw new HttpError(404, 'not_found', `no such demo queue "${reference}"; the queues are ${queues.map((known) => known.name).join(', ') || 'none'}`);
}

/**
 * The routes under `/demo/callers`: `GET` answers `{available, queues}` (available only with the embedded
 * simulator), `POST {queue, from?}` sends a caller there and answers `201 {call}` as the simulator made it.
 */
export function createDemoCallers(options: DemoCallersOptions): Hono {
  const send = options.fetch ?? fetch;
  const app = new Hono().basePath('/demo/callers');
  app.use('*', noStore, refuseCrossSite());
  app.get('/', (c) => c.json(options.simulatorUrl ? { available: true, queues: options.queues.map(({ id, name }) => ({ id, name })) } : { available: false, queues: [] }));
  app.post('/', async (c) => {
    if (!(await options.authenticate(c.req.raw))) throw new HttpError(401, 'unauthenticated', 'log in to send a caller');
    const parsed = sendInput.safeParse(await readJsonBody(c.req.raw));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new HttpError(400, 'invalid_input', `${issue?.path.map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid input'}`);
    }
    if (!options.simulatorUrl) throw new HttpError(404, 'not_found', 'callers on demand need the embedded simulator; a real service has real callers');
    const queue = demoQueue(options.queues, parsed.data.queue);
    const response = await send(`${options.simulatorUrl}/__sim/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ queueId: queue.id, from: parsed.data.from ?? callerNumber(), to: DEMO_LINE }),
    }).catch(() => null);
    const body = (await response?.json().catch(() => null)) as { call?: unknown; code?: unknown } | null;
    if (response?.status !== 201 || !body?.call) {
      throw new HttpError(502, 'upstream_invalid_response', `the simulator did not take the caller (${response ? `${response.status}${typeof body?.code === 'string' ? ` ${body.code}` : ''}` : 'no answer'})`);
    }
    return c.json({ call: body.call, queue: queue.name }, 201);
  });
  app.onError(onHttpError('demo callers'));
  return app;
}
