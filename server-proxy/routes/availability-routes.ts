import { z } from 'zod';
import { parseInput, readJsonBody } from '../../contract/voice-input.js';
import type { AvailabilityRecord } from '../desk/availability.js';
import type { Queues } from './queue-routes.js';
import type { ProxyContext } from './route-parts.js';

/**
 * `GET` and `PUT /availability`: whether the logged-in user's agent takes offered callers.
 * The record keeps the queues `queuesFor(user)` allowed when the user said it, so the router, which runs with
 * no request, offers them only those; and the time the agent became idle, for the longest idle first.
 */

/** The body of `PUT /availability`. */
const availabilityInput = z.strictObject({ availability: z.enum(['available', 'away']) });

/** What both routes answer: `{availability, since}`, `since` ISO or null when the user never said. */
const answer = (q: Queues, record: AvailabilityRecord | null): Response =>
  new Response(JSON.stringify({ availability: record?.availability ?? 'away', since: record ? new Date(record.since).toISOString() : null }), {
    headers: { ...q.headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
  });

/** `GET /availability`: the user's word, `away` until they say otherwise. */
export async function readAvailability(q: Queues, c: ProxyContext): Promise<Response> {
  return answer(q, await q.availability.get(c.get('subject')));
}

/** `PUT /availability` `{availability}`: the user's agent takes offers, or no longer does. */
export async function setAvailability(q: Queues, c: ProxyContext): Promise<Response> {
  const { availability } = parseInput(availabilityInput, await readJsonBody(c.req.raw));
  const subject = c.get('subject');
  const [before, agentId, queues] = await Promise.all([q.availability.get(subject), q.agents.ensure(c.get('user'), subject), q.queuesFor(c.get('user'))]);
  // Saying it again keeps the time: an agent idle for long stays first in line.
  const since = before?.availability === availability ? before.since : q.clock.now();
  const record: AvailabilityRecord = { subject, agentId, availability, since, queues: [...queues] };
  await q.availability.set(record);
  // Either word reaches the router at once: an agent gone away is offered nobody more, not only after its next check.
  q.offers?.nudge();
  return answer(q, record);
}
