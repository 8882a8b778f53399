import { createHash, randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { refuseCrossSite } from './cross-site.js';
import { errorResponse, finishApp, HttpError } from '../contract/http-error.js';
import { createOwnership } from './ownership.js';
import { redactingLog } from './redact.js';
import { agentName, subjectOf, type ProxyUser } from './subject.js';
import { createRelay } from './relay.js';
import { createSessionCleanup } from './session-cleanup.js';
import { createUpstream, type Upstream } from './upstream.js';
import { userRateLimit, type UserRateLimitOptions } from './user-rate-limit.js';
import { callInput, emptyInput, parseIdempotencyKey, parseInput, readJsonBody } from '../contract/voice-input.js';

/**
 * `createVoiceProxy`: the server piece that holds the persistent key and forwards the page's six browser
 * operations (DESIGN.md, browser-facing routes), each only for the logged-in user's own resources.
 */

export type { ProxyUser } from './subject.js';

/** Options of {@link createVoiceProxy}; README "Mounting the proxy in your app" lists them with defaults. */
export interface VoiceProxyOptions {
  /** `{base_url}` of the voice service, including `/api`. */
  baseUrl: string;
  /** The persistent API key; never sent to the page, never logged. */
  apiKey: string;
  /** Returns the user of the request, or null when nobody is logged in. */
  authenticate(request: Request): Promise<ProxyUser | null> | ProxyUser | null;
  fetch?: typeof fetch;
  /** Upstream request limit in ms (default 10 s); past it the page gets a `504` with a code. */
  timeoutMs?: number;
  /** Per-user limits below the key's quota (default 80 a minute, 5,000 an hour, in memory); `false` turns them off. */
  rateLimit?: UserRateLimitOptions | false;
  /** Origins besides the request's own allowed to send mutating requests (see `cross-site.ts`). */
  trustedOrigins?: readonly string[];
  /**
   * How long `revokeSessions` reads a call it asked to end before rejecting `cleanup_unknown`, in ms
   * (default 10 s); the reads are a few hundred ms apart.
   */
  revokeWaitMs?: number;
  /** Where the proxy's log lines go (default `console.error`); they never contain the key. */
  log?: (line: string) => void;
  /**
   * Headers for every answer (your security headers, say), written in as each answer is built; default none.
   * Cheaper than a middleware that sets them on the finished answer: see `security-headers.ts`.
   */
  headers?: Readonly<Record<string, string>>;
}

/** A web-standard handler, mountable in any server that speaks `Request`/`Response`. */
export type VoiceProxy = ((request: Request) => Promise<Response>) & {
  /**
   * Ends the user's current browser session at the service (logout, spec 4.9) and, when a call of it was
   * running, hangs the call up and resolves only once a read shows it over (spec 3.2).
   *
   * @remarks
   * Rejects with an `HttpError` when it could not: `504 cleanup_unknown` when the call could not be proven
   * ended within `revokeWaitMs`, or the service's own error (`503 upstream_unavailable`, ...). Log the user
   * out anyway; say that the cleanup is unproven.
   */
  revokeSessions(user: ProxyUser): Promise<void>;
};

type Env = { Variables: { subject: string; user: ProxyUser } };

/** Time between the reads by which `revokeSessions` proves a call ended. */
const REVOKE_READ_INTERVAL_MS = 300;

/** The user's webrtc agent, created once per subject (spec 4.7: `409 agent_exists` means list agents to find it). */
function createAgents(upstream: Upstream, ensureOk: (response: Awaited<ReturnType<Upstream>>) => Awaited<ReturnType<Upstream>>) {
  const known = new Set<string>();
  return {
    async ensure(user: ProxyUser, subject: string): Promise<void> {
      if (known.has(subject)) return;
      const created = await upstream({ method: 'POST', path: '/agents', body: { name: agentName(user, subject), type: 'webrtc', externalSubject: subject } });
      let id = (created.body as { id?: string } | undefined)?.id;
      if (created.status === 409) {
        const listed = ensureOk(await upstream({ method: 'GET', path: '/agents', query: { externalSubject: subject } }));
        id = (listed.body as { agents?: Array<{ id: string; externalSubject: string }> }).agents?.find((a) => a.externalSubject === subject)?.id;
      } else {
        ensureOk(created);
      }
      if (!id) throw new HttpError(502, 'upstream_invalid_response', 'the voice service did not return the agent');
      known.add(subject);
    },
    /** The cached agent may be gone (service reset, agent removed): the next press looks it up again. */
    forget: (subject: string) => known.delete(subject),
  };
}

/**
 * Creates the proxy.
 *
 * @example
 * ```ts
 * const voice = createVoiceProxy({ baseUrl, apiKey, authenticate: async (request) => lookUpYourUser(request) });
 * app.all('/voice/*', (c) => voice(c.req.raw));
 * ```
 */
export function createVoiceProxy(options: VoiceProxyOptions): VoiceProxy {
  const log = redactingLog([options.apiKey], options.log);
  const upstream = createUpstream(options);
  const headers = options.headers ?? {};
  const relayer = createRelay(log, headers);
  const { relay, ensureOk } = relayer;
  const { ownSession, ownCall } = createOwnership(upstream, relayer);
  const agents = createAgents(upstream, ensureOk);
  const cleanup = createSessionCleanup(upstream, relayer, { waitMs: options.revokeWaitMs ?? 10_000, intervalMs: REVOKE_READ_INTERVAL_MS, log });
  const app = new Hono<Env>().basePath('/voice');

  // Every answer is built `no-store` (relay, errorResponse): no middleware edits a finished answer (see
  // `security-headers.ts` for why).
  app.use('*', refuseCrossSite({ trustedOrigins: options.trustedOrigins ?? [] }));
  const limitBody = bodyLimit({ maxSize: 64 * 1024, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 64 KB'), headers) });
  // A GET has no body to limit, and asking for one builds a whole WHATWG Request (with its AbortController)
  // on Node.
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  app.use('*', async (c, next) => {
    const user = await options.authenticate(c.req.raw);
    if (!user) throw new HttpError(401, 'unauthenticated', 'log in first');
    c.set('user', user);
    c.set('subject', subjectOf(user));
    await next();
  });
  if (options.rateLimit !== false) app.use('*', userRateLimit(options.rateLimit ?? {}, (c) => c.get('subject'), log));

  app.post('/browser-sessions', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    await agents.ensure(c.get('user'), c.get('subject'));
    // A session is cheap and supersedes an idle older one, so each press gets a fresh key; should its answer
    // be lost, the session it may have made is ended (session-cleanup.ts), since no page holds it.
    const response = await upstream({ method: 'POST', path: '/browser-sessions', body: { externalSubject: c.get('subject') }, idempotencyKey: randomUUID() }).catch(
      (error: unknown) => cleanup.afterLostCreate(error, c.get('subject')),
    );
    if (response.status >= 400) agents.forget(c.get('subject'));
    return relay(response);
  });
  app.get('/browser-sessions', async (c) => relay(await upstream({ method: 'GET', path: '/browser-sessions', query: { externalSubject: c.get('subject') } })));
  app.get('/browser-sessions/:id', async (c) => relay(await ownSession(c.get('subject'), c.req.param('id'))));
  app.delete('/browser-sessions/:id', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    const id = c.req.param('id');
    await ownSession(c.get('subject'), id);
    return relay(await upstream({ method: 'DELETE', path: `/browser-sessions/${id}`, body: {}, lostCode: 'cleanup_unknown' }));
  });

  app.post('/browser-calls', async (c) => {
    const key = parseIdempotencyKey(c.req.header('idempotency-key'));
    const input = parseInput(callInput, await readJsonBody(c.req.raw));
    // The session must be the caller's (and a well-formed id) before anything is asked to call.
    await ownSession(c.get('subject'), input.sessionId);
    // One key serves every user, so two users' keys must not meet: the upstream key is derived from both.
    const upstreamKey = createHash('sha256').update(`${c.get('subject')}\n${key}`).digest('base64url');
    // spec 7: a lost answer is `504 call_outcome_unknown`, never a 4xx, so the page keeps its key and retries.
    return relay(await upstream({ method: 'POST', path: '/browser-calls', body: input, idempotencyKey: upstreamKey, lostCode: 'call_outcome_unknown' }));
  });
  app.get('/browser-calls/:id', async (c) => relay(await ownCall(c.get('subject'), c.req.param('id'))));
  app.post('/browser-calls/:id/hangup', async (c) => {
    parseInput(emptyInput, await readJsonBody(c.req.raw));
    const id = c.req.param('id');
    await ownCall(c.get('subject'), id);
    return relay(await upstream({ method: 'POST', path: `/browser-calls/${id}/hangup`, body: {}, lostCode: 'cleanup_unknown' }));
  });

  finishApp(app, 'voice proxy', 'no such route', log, headers);
  // A path outside /voice (a handler mounted on a wider prefix) misses the base path and every route.
  app.notFound(() => errorResponse(new HttpError(404, 'not_found', 'no such route'), headers));

  const handler = (request: Request) => Promise.resolve(app.fetch(request));
  return Object.assign(handler, {
    revokeSessions: (user: ProxyUser): Promise<void> => cleanup.revoke(subjectOf(user)),
  });
}
