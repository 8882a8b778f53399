import { HttpError } from '../../contract/http-error.js';
import { queueCallOf } from '../desk/queue-calls.js';
import { isAgentsMonitorLeg, isAgentsQueueCall } from './call-reach.js';
import type { Relay } from '../upstream/relay.js';
import type { Upstream, UpstreamResponse } from '../upstream/upstream.js';

/**
 * Ownership (docs/proxy.md, "The routes, and what it holds on each"): the service scopes resources to the key and the proxy uses one key for every user,
 * so the proxy proves each session and call id is the caller's before it touches it. Every failure of that
 * proof answers exactly what an unknown id answers.
 */

/**
 * What an id may look like before it is put in an upstream path: letters, digits, `_` and `-`, at most 128.
 * Anything else (`..`, `%2F`, spaces) could be resolved by the URL parser into another upstream path.
 */
const RESOURCE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** Whether `id` can be a session or call id (checked before any upstream request). */
export function isResourceId(id: unknown): id is string {
  return typeof id === 'string' && RESOURCE_ID.test(id);
}

/** The one "not yours" answer, byte for byte the same for unknown, invalid and other users' ids. */
export const notFound = (what: 'browser session' | 'browser call' | 'call' | 'queue' | 'recording') => new HttpError(404, 'not_found', `no such ${what}`);

/** Only "not yours" means not owned; a fault met on the way (429, 503) must reach the page as itself. */
function notOwned(error: unknown): false {
  if (error instanceof HttpError && error.status === 404) return false;
  throw error;
}

/**
 * The ownership checks over one upstream: `ownSession`, `ownCall` and `ownQueueCall` resolve the owned
 * resource or throw the 404.
 */
export function createOwnership(upstream: Upstream, { ensureOk }: Relay) {
  /** Reads a session and proves it is `subject`'s. */
  const ownSession = async (subject: string, id: string): Promise<UpstreamResponse> => {
    if (!isResourceId(id)) throw notFound('browser session');
    const response = await upstream({ method: 'GET', path: `/browser-sessions/${id}` });
    if (response.status === 404) throw notFound('browser session');
    ensureOk(response);
    if ((response.body as { session?: { externalSubject?: unknown } } | undefined)?.session?.externalSubject !== subject) throw notFound('browser session');
    return response;
  };

  /** Reads a call and proves it is `subject`'s, through its `externalSubject` or else its session. */
  const ownCall = async (subject: string, id: string): Promise<UpstreamResponse> => {
    if (!isResourceId(id)) throw notFound('browser call');
    const response = await upstream({ method: 'GET', path: `/browser-calls/${id}` });
    if (response.status === 404) throw notFound('browser call');
    ensureOk(response);
    const call = (response.body as { call?: { externalSubject?: unknown; sessionId?: unknown } } | undefined)?.call;
    const owned =
      call?.externalSubject !== undefined
        ? call.externalSubject === subject
        : typeof call?.sessionId === 'string' && (await ownSession(subject, call.sessionId).then(() => true, notOwned));
    if (!owned) throw notFound('browser call');
    return response;
  };

  /**
   * Reads a queue's generic call and proves it is bridged to `agentId`, the user's agent (docs/desk.md, "Support
   * desks"): a caller still waiting, or taken by another agent, is not the user's. A monitor leg ringing the
   * user's agent is theirs too (docs/desk.md, "Supervisors and recordings"): the supervisor's page reads and ends it.
   */
  const ownQueueCall = async (agentId: string, id: string): Promise<UpstreamResponse> => {
    if (!isResourceId(id)) throw notFound('call');
    const response = await upstream({ method: 'GET', path: `/calls/${id}` });
    if (response.status === 404) throw notFound('call');
    ensureOk(response);
    const call = (response.body as { call?: unknown } | undefined)?.call;
    const queueCall = queueCallOf(call);
    if (!isAgentsMonitorLeg(call, agentId) && !(queueCall && isAgentsQueueCall(queueCall, agentId))) throw notFound('call');
    return response;
  };

  return { ownSession, ownCall, ownQueueCall };
}
