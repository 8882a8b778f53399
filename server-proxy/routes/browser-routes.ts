import { createHash, randomUUID } from 'node:crypto';
import { callInput, emptyInput, parseIdempotencyKey, parseInput, readJsonBody } from '../../contract/voice-input.js';
import type { ProxyContext, RouteParts } from './route-parts.js';

/**
 * The six browser operations the proxy forwards (spec 4.7), one named handler each,
 * every one only for the logged-in user's own resources; `ROUTES` gives each its route. The middleware of
 * `createVoiceProxy` has set the user.
 */

/** The `call` of an answer's body, if any. */
const callIn = (body: unknown): unknown => (body as { call?: unknown } | undefined)?.call;

/** `POST /browser-sessions`: the user's agent, then a new session for it. */
export async function createSession({ upstream, relay, agents, cleanup, budget }: RouteParts, c: ProxyContext): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  // Last in priority: refused here when it would eat the reads kept for the calls in progress.
  await budget.admitSession();
  await agents.ensure(c.get('user'), c.get('subject'));
  // A session is cheap and supersedes an idle older one, so each press gets a fresh key; should its answer
  // be lost, the session it may have made is ended (`createSessionCleanup`), since no page holds it.
  const response = await upstream({ method: 'POST', path: '/browser-sessions', body: { externalSubject: c.get('subject') }, idempotencyKey: randomUUID() }).catch(
    (error: unknown) => cleanup.afterLostCreate(error, c.get('subject')),
  );
  if (response.status >= 400) agents.forget(c.get('subject'));
  return relay(response);
}

/** `GET /browser-sessions`: the user's current session and call. */
export async function readCurrent({ upstream, relay, budget }: RouteParts, c: ProxyContext): Promise<Response> {
  await budget.admitRecoveryRead();
  const response = await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: c.get('subject') } });
  // A call it names is one the page will read (recovery, or a lost answer reconciled): it holds a place.
  budget.callSeen(callIn(response.body));
  return relay(response);
}

/** `GET /browser-sessions/:id`: one of the user's sessions. */
export async function readSession({ relay, ownSession }: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  return relay(await ownSession(c.get('subject'), id));
}

/** `DELETE /browser-sessions/:id`: ends one of the user's sessions. */
export async function endSession({ upstream, relay, ownSession }: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  await ownSession(c.get('subject'), id);
  return relay(await upstream({ method: 'DELETE', path: `/browser-sessions/${id}`, body: {}, lostCode: 'cleanup_unknown' }));
}

/** `POST /browser-calls`: a call from one of the user's sessions, under the page's idempotency key. */
export async function startCall({ upstream, relay, ownSession, budget }: RouteParts, c: ProxyContext): Promise<Response> {
  const key = parseIdempotencyKey(c.req.header('idempotency-key'));
  const input = parseInput(callInput, await readJsonBody(c.req.raw));
  // One key serves every user, so two users' keys must not meet: the upstream key is derived from both.
  const upstreamKey = createHash('sha256').update(`${c.get('subject')}\n${key}`).digest('base64url');
  // A call the key's budget cannot carry is refused here, before any request reaches the service.
  const ticket = await budget.admitCall(upstreamKey);
  // The session must be the caller's (and a well-formed id) before anything is asked to call.
  await ownSession(c.get('subject'), input.sessionId).catch((error: unknown) => {
    budget.callAnswered(ticket, null);
    throw error;
  });
  // spec 7: a lost answer is `504 call_outcome_unknown`, never a 4xx, so the page keeps its key and retries;
  // its place stays held until its lease lapses, since the call may exist.
  const response = await upstream({ method: 'POST', path: '/browser-calls', body: input, idempotencyKey: upstreamKey, lostCode: 'call_outcome_unknown' });
  budget.callAnswered(ticket, callIn(response.body));
  return relay(response);
}

/** `GET /browser-calls/:id`: one of the user's calls. */
export async function readCall({ relay, ownCall, budget }: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  const response = await ownCall(c.get('subject'), id);
  budget.callSeen(callIn(response.body));
  return relay(response);
}

/** `POST /browser-calls/:id/hangup`: hangs up one of the user's calls. */
export async function hangUpCall({ upstream, relay, ownCall, budget }: RouteParts, c: ProxyContext, id: string): Promise<Response> {
  parseInput(emptyInput, await readJsonBody(c.req.raw));
  await ownCall(c.get('subject'), id);
  const response = await upstream({ method: 'POST', path: `/browser-calls/${id}/hangup`, body: {}, lostCode: 'cleanup_unknown' });
  budget.callSeen(callIn(response.body));
  return relay(response);
}
