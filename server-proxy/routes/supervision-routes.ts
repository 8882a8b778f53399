import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { HttpError } from '../../contract/http-error.js';
import { isBridged } from '../../contract/queue-call.js';
import { emptyInput, parseIdempotencyKey, parseInput, readJsonBody } from '../../contract/voice-input.js';
import { supervisesQueueCall } from '../access/call-reach.js';
import { isResourceId, notFound } from '../access/ownership.js';
import { genericBudgetView, queueCallsIn } from '../desk/queue-calls.js';
import type { ProxyContext, RouteParts } from './route-parts.js';
import { isSupervisor, reachCall, reachRecording, supervisedAgents, supervisedSubjects } from '../desk/supervision.js';

/**
 * Supervisors and recordings (spec 4.8; docs/desk.md, "Supervisors and recordings"):
 * a supervisor's list of the calls in progress they supervise, the monitor leg that rings the supervisor's own
 * agent, the start and stop of a recording by the call's agent, and the reads and download of recordings. One
 * named handler each; `ROUTES` gives each its route, and `reachCall` and `reachRecording` decide who reaches what.
 */

/** An answer the proxy writes itself, as relayed ones are: JSON, no-store, the integrator's headers. */
const answer = (p: RouteParts, body: unknown): Response => new Response(JSON.stringify(body), { headers: { ...p.headers, 'Content-Type': 'application/json', 'Cache-Control': 'no-store' } });

/**
 * The upstream Idempotency-Key of a creating request, when the page sent one: derived from the user's subject
 * and the page's key, since one key serves every user and two users' keys must not meet.
 */
function upstreamKey(c: ProxyContext): string | undefined {
  const header = c.req.header('idempotency-key');
  if (header === undefined) return undefined;
  return createHash('sha256').update(`${c.get('subject')}\n${parseIdempotencyKey(header)}`).digest('base64url');
}

/** A browser call the current-session read names, when it is in progress. */
const busyBrowserCall = (body: unknown): Record<string, unknown> | null => {
  const call = (body as { call?: { busy?: unknown } | null } | undefined)?.call;
  return call && call.busy === true ? (call as Record<string, unknown>) : null;
};

/**
 * `GET /supervised-calls`: `{calls: [{agent, call}]}`, the calls in progress of the agents and queues the user
 * supervises (`agent`: the supervised user's id, or null for a queue's call bridged to another agent). For a
 * user who supervises nobody, the route answers as an unknown one.
 */
export async function listSupervisedCalls(p: RouteParts, c: ProxyContext): Promise<Response> {
  await p.budget.admitRecoveryRead();
  const user = c.get('user');
  if (!isSupervisor(user)) throw new HttpError(404, 'not_found', 'no such route');
  const agents = await supervisedAgents(p, user);
  const queues = new Set(user.supervisor?.queues ?? []);
  const listed = p.ensureOk(await p.upstream({ method: 'GET', path: '/calls', query: { status: 'active' } }));
  const queued = queueCallsIn(listed.body)
    .filter((call) => isBridged(call.state) && supervisesQueueCall(call, queues, agents))
    .map((call) => ({ agent: (call.agentId !== null && agents.get(call.agentId)) || null, call }));
  // A browser call is its agent's current one: one read of each supervised agent's current session.
  const browser = await Promise.all(
    [...supervisedSubjects(user)].map(async ([subject, agent]) => {
      const current = p.ensureOk(await p.upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: subject } }));
      const call = busyBrowserCall(current.body);
      if (call) p.budget.callSeen(call);
      return call ? [{ agent, call }] : [];
    }),
  );
  return answer(p, { calls: [...queued, ...browser.flat()] });
}

/** `POST /calls/:id/monitor` `{}`: a monitor leg of a call the user supervises, ringing the user's own agent. */
export async function monitorCall(p: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  const key = upstreamKey(c);
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  // The leg is one more call the supervisor's page reads while it runs: admitted as a new call is.
  const ticket = await p.budget.admitCall(`monitor:${key ?? randomUUID()}`);
  let to: string;
  try {
    await reachCall(p, c, id, 'supervised');
    to = await p.agents.ensure(c.get('user'), c.get('subject'));
  } catch (error) {
    p.budget.callAnswered(ticket, null);
    throw error;
  }
  // A lost answer keeps the leg's place until its lease lapses, since the leg may exist.
  const response = await p.upstream({ method: 'POST', path: `/calls/${id}/monitor`, body: { to }, ...(key ? { idempotencyKey: key } : {}), lostCode: 'monitor_outcome_unknown' });
  p.budget.callAnswered(ticket, genericBudgetView((response.body as { call?: unknown } | undefined)?.call));
  return p.relay(response);
}

/** `POST /calls/:id/recordings` `{}`: starts recording a call of the user's own. */
export async function startRecording(p: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  const key = upstreamKey(c);
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  await reachCall(p, c, id, 'own');
  return p.relay(await p.upstream({ method: 'POST', path: `/calls/${id}/recordings`, body: {}, ...(key ? { idempotencyKey: key } : {}), lostCode: 'recording_outcome_unknown' }));
}

/** `POST /calls/:id/recordings/:rid/stop` `{}`: stops a recording of a call of the user's own. */
export async function stopRecording(p: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  await reachCall(p, c, id, 'own');
  const recordingId = c.req.param('rid');
  if (!isResourceId(recordingId)) throw notFound('recording');
  return p.relay(await p.upstream({ method: 'POST', path: `/calls/${id}/recordings/${recordingId}/stop`, body: {}, lostCode: 'recording_outcome_unknown' }));
}

/** The one query of a call's recordings. */
const recordingsQuery = z.strictObject({ callId: z.string() });

/** `GET /recordings?callId=`: the recordings of a call the user reaches (their own, or one they supervise). */
export async function listRecordings(p: RouteParts, c: ProxyContext): Promise<Response> {
  await p.budget.admitRecoveryRead();
  const { callId } = parseInput(recordingsQuery, c.req.query());
  await reachCall(p, c, callId, 'either');
  return p.relay(await p.upstream({ method: 'GET', path: '/recordings', query: { callId } }));
}

/** `GET /recordings/:id`: one recording of a call the user reaches. */
export async function readRecording(p: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  await p.budget.admitRecoveryRead();
  return p.relay(await reachRecording(p, c, id));
}

/**
 * `GET /recordings/:id/audio`: the recording's file, streamed from the service as it comes, the page's `Range`
 * passed on and the service's `206` or `416` with its `Content-Range` passed back.
 */
export async function downloadRecording(p: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  await p.budget.admitRecoveryRead();
  await reachRecording(p, c, id);
  const file = await p.download({ path: `/recordings/${id}/audio`, range: c.req.header('range') });
  if (!file.streamed) return p.relay(file.response);
  return new Response(file.body, { status: file.status, headers: { ...p.headers, ...file.headers, 'Cache-Control': 'no-store' } });
}
