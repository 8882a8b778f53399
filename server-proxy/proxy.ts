import { createHash, randomUUID } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { errorResponse, finishApp, HttpError, noStore } from './http-error.js';
import { createUpstream, type Upstream, type UpstreamResponse } from './upstream.js';
import { callInput, emptyInput, parseIdempotencyKey, parseInput, readJsonBody } from './voice-input.js';

/**
 * `createVoiceProxy`: the server piece that holds the persistent key and forwards the page's six browser
 * operations (DESIGN.md, browser-facing routes), each only for the logged-in user's own resources.
 */

/** The logged-in user, as the integrator's `authenticate` returns it. */
export interface ProxyUser {
  /** Stable per user; becomes the `externalSubject` (at most 200 characters). */
  id: string;
  /** Shown as the agent's name. */
  name?: string;
}

export interface VoiceProxyOptions {
  /** `{base_url}` of the voice service, including `/api`. */
  baseUrl: string;
  /** The persistent API key; never sent to the page. */
  apiKey: string;
  /** Returns the user of the request, or null when nobody is logged in. */
  authenticate(request: Request): Promise<ProxyUser | null> | ProxyUser | null;
  fetch?: typeof fetch;
  /** Upstream request limit in ms (default 10 s). */
  timeoutMs?: number;
}

/** A web-standard handler, mountable in any server that speaks `Request`/`Response`. */
export type VoiceProxy = ((request: Request) => Promise<Response>) & {
  /** Ends the user's current browser session at the service (logout, spec 4.9). */
  revokeSessions(user: ProxyUser): Promise<void>;
};

type Env = { Variables: { subject: string; user: ProxyUser } };

function subjectOf(user: ProxyUser): string {
  if (typeof user.id !== 'string' || user.id.length === 0 || user.id.length > 200) {
    throw new Error('authenticate() must return a user whose id is 1-200 characters (it becomes the externalSubject)');
  }
  return user.id;
}

/** An upstream refusal of our own key: nothing the page can fix, and nothing it should learn about the key. */
function keyRefused(response: UpstreamResponse): boolean {
  const code = (response.body as { code?: unknown } | undefined)?.code;
  return response.status === 401 || (response.status === 403 && (code === 'account_suspended' || code === 'voice_not_entitled' || code === 'insufficient_scope'));
}

const voiceUnavailable = (response: UpstreamResponse): HttpError => {
  console.error(`voice proxy: the service refused the API key (${response.status})`);
  return new HttpError(503, 'browser_voice_unavailable', 'browser calling is not available right now');
};

/** The service's answer, as the page gets it: status, body and the rate-limit headers. */
function relay(c: Context, response: UpstreamResponse): Response {
  if (keyRefused(response)) return errorResponse(voiceUnavailable(response));
  const headers = Object.fromEntries(response.headers);
  return c.body(JSON.stringify(response.body ?? {}), response.status as 200, {
    ...headers,
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
  });
}

/** Passes a 2xx through; anything else becomes the error the page sees. */
function ensureOk(response: UpstreamResponse): UpstreamResponse {
  if (response.status >= 200 && response.status < 300) return response;
  if (keyRefused(response)) throw voiceUnavailable(response);
  const body = response.body as { code?: string; error?: string } | undefined;
  throw new HttpError(response.status, body?.code ?? 'upstream_error', body?.error ?? 'the voice service refused the request', Object.fromEntries(response.headers));
}

const notYours = (what: string) => new HttpError(404, 'not_found', `no such ${what}`);

export function createVoiceProxy(options: VoiceProxyOptions): VoiceProxy {
  const upstream: Upstream = createUpstream(options);
  /** Subjects whose agent is known to exist at the service. */
  const agents = new Set<string>();
  const app = new Hono<Env>().basePath('/voice');

  /** The user's webrtc agent, created once (spec 4.7: `409 agent_exists` means list agents to find it). */
  const ensureAgent = async (user: ProxyUser, subject: string): Promise<void> => {
    if (agents.has(subject)) return;
    const created = await upstream({ method: 'POST', path: '/agents', body: { name: (user.name ?? subject).slice(0, 200), type: 'webrtc', externalSubject: subject } });
    let id = (created.body as { id?: string } | undefined)?.id;
    if (created.status === 409) {
      const listed = ensureOk(await upstream({ method: 'GET', path: '/agents', query: { externalSubject: subject } }));
      id = (listed.body as { agents?: Array<{ id: string; externalSubject: string }> }).agents?.find((a) => a.externalSubject === subject)?.id;
    } else {
      ensureOk(created);
    }
    if (!id) throw new HttpError(502, 'upstream_invalid_response', 'the voice service did not return the agent');
    agents.add(subject);
  };

  /** Reads a session and proves it is the caller's; another user's id answers exactly as an unknown one. */
  const ownSession = async (subject: string, id: string): Promise<UpstreamResponse> => {
    const response = await upstream({ method: 'GET', path: `/browser-sessions/${encodeURIComponent(id)}` });
    if (response.status === 404) throw notYours('browser session');
    ensureOk(response);
    if ((response.body as { session?: { externalSubject?: string } }).session?.externalSubject !== subject) throw notYours('browser session');
    return response;
  };

  const ownCall = async (subject: string, id: string): Promise<UpstreamResponse> => {
    const response = await upstream({ method: 'GET', path: `/browser-calls/${encodeURIComponent(id)}` });
    if (response.status === 404) throw notYours('browser call');
    ensureOk(response);
    const call = (response.body as { call?: { externalSubject?: string; sessionId?: string } }).call;
    // Only "not yours" means not owned; a fault of the session read (429, 503) must reach the page as itself.
    const notOwned = (error: unknown) => {
      if (error instanceof HttpError && error.status === 404) return false;
      throw error;
    };
    const owned = call?.externalSubject !== undefined ? call.externalSubject === subject : call?.sessionId !== undefined && (await ownSession(subject, call.sessionId).then(() => true, notOwned));
    if (!owned) throw notYours('browser call');
    return response;
  };

  app.use('*', bodyLimit({ maxSize: 64 * 1024, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 64 KB')) }));
  app.use('*', noStore, async (c, next) => {
    const user = await options.authenticate(c.req.raw);
    if (!user) throw new HttpError(401, 'unauthenticated', 'log in first');
    c.set('user', user);
    c.set('subject', subjectOf(user));
    await next();
  });

  app.post('/browser-sessions', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    await ensureAgent(c.get('user'), c.get('subject'));
    // A session is cheap and supersedes an idle older one, so each press gets a fresh key.
    const response = await upstream({ method: 'POST', path: '/browser-sessions', body: { externalSubject: c.get('subject') }, idempotencyKey: randomUUID() });
    // The cached agent may be gone (service reset, agent removed): the next press looks it up again.
    if (response.status >= 400) agents.delete(c.get('subject'));
    return relay(c, response);
  });
  app.get('/browser-sessions', async (c) =>
    relay(c, await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: c.get('subject') } })),
  );
  app.get('/browser-sessions/:id', async (c) => relay(c, await ownSession(c.get('subject'), c.req.param('id'))));
  app.delete('/browser-sessions/:id', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    await ownSession(c.get('subject'), c.req.param('id'));
    return relay(c, await upstream({ method: 'DELETE', path: `/browser-sessions/${encodeURIComponent(c.req.param('id'))}`, body: {} }));
  });

  app.post('/browser-calls', async (c) => {
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(callInput, await readJsonBody(c.req.raw));
    await ownSession(c.get('subject'), input.sessionId);
    // One key serves every user, so two users' keys must not meet: the upstream key is derived from both.
    const upstreamKey = createHash('sha256').update(`${c.get('subject')}\n${key}`).digest('base64url');
    return relay(c, await upstream({ method: 'POST', path: '/browser-calls', body: input, idempotencyKey: upstreamKey }));
  });
  app.get('/browser-calls/:id', async (c) => relay(c, await ownCall(c.get('subject'), c.req.param('id'))));
  app.post('/browser-calls/:id/hangup', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    await ownCall(c.get('subject'), c.req.param('id'));
    return relay(c, await upstream({ method: 'POST', path: `/browser-calls/${encodeURIComponent(c.req.param('id'))}/hangup`, body: {} }));
  });

  finishApp(app, 'voice proxy');

  const handler = (request: Request) => Promise.resolve(app.fetch(request));
  return Object.assign(handler, {
    async revokeSessions(user: ProxyUser): Promise<void> {
      const subject = subjectOf(user);
      const current = ensureOk(await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: subject } }));
      const id = (current.body as { session?: { id?: string } | null }).session?.id;
      if (id) ensureOk(await upstream({ method: 'DELETE', path: `/browser-sessions/${encodeURIComponent(id)}`, body: {} }));
    },
  });
}
