import { reachesQueueCall, type Reach } from '../access/call-reach.js';
import { isResourceId, notFound } from '../access/ownership.js';
import { queueCallOf } from './queue-calls.js';
import type { ProxyContext, RouteParts } from '../routes/route-parts.js';
import { subjectOf, type ProxyUser } from '../access/subject.js';
import type { UpstreamResponse } from '../upstream/upstream.js';

/**
 * Who reaches a call in progress and its recordings (docs/desk.md, "Supervisors and recordings"): its agent (the
 * user of a browser call, or the agent a dequeue bridged a queue's call to), and a supervisor of that agent or
 * of that queue (`supervisor` of the user `authenticate` returns). Every other user gets the 404 of a call that
 * does not exist, byte for byte.
 */

/** A call read to decide: the service's answer, and whether it is a browser call (else a generic one). */
export interface CallRead {
  response: UpstreamResponse;
  browser: boolean;
}

/** Whether `authenticate` made the user a supervisor of any agent or queue. */
export const isSupervisor = (user: ProxyUser): boolean => (user.supervisor?.agents?.length ?? 0) + (user.supervisor?.queues?.length ?? 0) > 0;

/** The subjects of the agents the user supervises, as the service knows them (`externalSubject`). */
export const supervisedSubjects = (user: ProxyUser): Map<string, string> => new Map((user.supervisor?.agents ?? []).map((id) => [subjectOf({ id }), id]));

/** The service's agent ids of the agents the user supervises, each with its user's id; an agent never made is none. */
export async function supervisedAgents(p: RouteParts, user: ProxyUser): Promise<Map<string, string>> {
  const found = await Promise.all([...supervisedSubjects(user)].map(async ([subject, id]) => [await p.agents.find(subject), id] as const));
  return new Map(found.filter((entry): entry is [string, string] => entry[0] !== null));
}

/** A browser call's or a generic call's read, trying first the kind its id's prefix names; null when neither is. */
async function readAnyCall(p: RouteParts, id: string): Promise<CallRead | null> {
  for (const browser of id.startsWith('c_') ? [false, true] : [true, false]) {
    const response = await p.upstream({ method: 'GET', path: `${browser ? '/browser-calls' : '/calls'}/${id}` });
    if (response.status === 404) continue;
    p.ensureOk(response);
    return { response, browser };
  }
  return null;
}

/** The subject a browser call is the user's by: its own `externalSubject`, else its session's. */
async function browserCallSubject(p: RouteParts, call: { externalSubject?: unknown; sessionId?: unknown } | undefined): Promise<string | null> {
  if (typeof call?.externalSubject === 'string') return call.externalSubject;
  if (!isResourceId(call?.sessionId)) return null;
  const response = await p.upstream({ method: 'GET', path: `/browser-sessions/${call.sessionId}` });
  if (response.status === 404) return null;
  const subject = (p.ensureOk(response).body as { session?: { externalSubject?: unknown } } | undefined)?.session?.externalSubject;
  return typeof subject === 'string' ? subject : null;
}

/** Whether the user of `c` reaches the call `read` as `reach` asks. */
async function reaches(p: RouteParts, c: ProxyContext, read: CallRead, reach: Reach): Promise<boolean> {
  const user = c.get('user');
  const call = (read.response.body as { call?: Record<string, unknown> } | undefined)?.call;
  if (read.browser) {
    const subject = await browserCallSubject(p, call);
    if (subject === null) return false;
    return (reach !== 'supervised' && subject === c.get('subject')) || (reach !== 'own' && supervisedSubjects(user).has(subject));
  }
  // A queue's call bridged to an agent; a monitor leg is nobody's to reach here.
  const queueCall = queueCallOf(call);
  if (!queueCall) return false;
  return reachesQueueCall(queueCall, reach, {
    agentId: () => p.agents.ensure(user, c.get('subject')),
    queues: new Set(user.supervisor?.queues ?? []),
    agents: () => supervisedAgents(p, user),
  });
}

/**
 * Reads the call `id` and proves the user of `c` reaches it as `reach` asks, or throws the 404 of an unknown
 * call. A user who supervises nobody is refused a supervisor's reach before anything is read.
 */
export async function reachCall(p: RouteParts, c: ProxyContext, id: string, reach: Reach): Promise<CallRead> {
  if (!isResourceId(id) || (reach === 'supervised' && !isSupervisor(c.get('user')))) throw notFound('call');
  const read = await readAnyCall(p, id);
  if (read && (await reaches(p, c, read, reach))) return read;
  throw notFound('call');
}

/** Reads the recording `id` and proves its call is the user's or one they supervise, or throws the 404 of an unknown recording. */
export async function reachRecording(p: RouteParts, c: ProxyContext, id: string): Promise<UpstreamResponse> {
  if (!isResourceId(id)) throw notFound('recording');
  const response = await p.upstream({ method: 'GET', path: `/recordings/${id}` });
  if (response.status === 404) throw notFound('recording');
  p.ensureOk(response);
  const callId = (response.body as { recording?: { callId?: unknown } } | undefined)?.recording?.callId;
  const reached = typeof callId === 'string' && (await reachCall(p, c, callId, 'either').then(
    () => true,
    (error: unknown) => {
      if ((error as { status?: unknown }).status === 404) return false;
      throw error;
    },
  ));
  if (!reached) throw notFound('recording');
  return response;
}
