import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getPath } from 'hono/utils/url';
import { createAgents } from './agents.js';
import { mountBrowserRoutes, type ProxyEnv } from './browser-routes.js';
import { refuseCrossSite } from './cross-site.js';
import { errorResponse, finishApp, HttpError } from '../contract/http-error.js';
import { createOwnership } from './ownership.js';
import { redactingLog } from './redact.js';
import { subjectOf, type ProxyUser } from './subject.js';
import { createQueueRoutes, type QueueOptions } from './queue-routes.js';
import { createRelay } from './relay.js';
import { createSessionCleanup } from './session-cleanup.js';
import type { BudgetStore } from './budget-store.js';
import { createKeyBudget, noBudget, type KeyBudget } from './key-budget.js';
import { createProxyMetrics, type ProxyMetrics } from './metrics.js';
import { createReadiness, type Readiness } from './readiness.js';
import { defaultLogger, noteUpstreamStatus, requestLog, routeTemplate, type ProxyLogger } from './request-log.js';
import { createUpstream, type Upstream } from './upstream.js';
import { userRateLimit, type UserRateLimitOptions } from './user-rate-limit.js';

/**
 * `createVoiceProxy`: the server piece that holds the persistent key and forwards the page's six browser
 * operations, each only for the logged-in user's own resources; with `queues`, also the support desk's
 * routes (queue-routes.ts).
 */

export type { ProxyUser } from './subject.js';
export type { ProxyLogger } from './request-log.js';
export type { Readiness } from './readiness.js';
export type { QueueOptions } from './queue-routes.js';

/** Options of {@link createVoiceProxy}; README "Mounting the proxy in your app" lists them with defaults. */
export interface VoiceProxyOptions {
  /** `{base_url}` of the voice service, including `/api`. */
  baseUrl: string;
  /** The persistent API key; never sent to the page, never logged. */
  apiKey: string;
  /** Returns the user of the request, or null when nobody is logged in. */
  authenticate(request: Request): Promise<ProxyUser | null> | ProxyUser | null;
  /** Sends the requests to the service instead of the proxy's own keep-alive pool (undici), e.g. a test double. */
  fetch?: typeof fetch;
  /** Upstream request limit in ms (default 10 s); past it the page gets a `504` with a code. */
  timeoutMs?: number;
  /** Per-user limits below the key's quota (default 80 a minute, 5,000 an hour, in memory); `false` turns them off. */
  rateLimit?: UserRateLimitOptions | false;
  /**
   * The key's quota as a budget shared by every user (README, "The key's budget"): learned from the service's
   * `X-RateLimit-*` headers, it keeps the reads of calls in progress and refuses a new call it cannot carry
   * with `429 concurrency_limit`. On by default, in this process's memory; `{ store }` shares it between
   * replicas (`createRedisBudgetStore`); `false` turns it off.
   */
  budget?: { store?: BudgetStore } | false;
  /**
   * Origins to accept as the app's own on requests that change something (POST, DELETE), e.g.
   * `https://app.example.com` when a TLS terminator makes the request URL `http://`. Read only when a browser
   * sends `Origin` without `Sec-Fetch-Site`, which decides alone when sent; other cross-site changes get
   * `403 cross_site_request`.
   */
  trustedOrigins?: readonly string[];
  /**
   * How long `revokeSessions` reads a call it asked to end before rejecting `cleanup_unknown`, in ms
   * (default 10 s); the reads are a few hundred ms apart.
   */
  revokeWaitMs?: number;
  /**
   * One JSON line per request (request id, the user's subject hashed, route, status, the service's status,
   * ms) and the proxy's notices go here: pino's `Logger` (your app's, or a `child` of it) or anything with
   * its `info` and `warn`. Default: pino writing to stderr at `logLevel`, the key cleared from every line;
   * `false`: no request lines (notices then go to `log`, else `console.error`).
   */
  logger?: ProxyLogger | false;
  /** The default logger's level (`info` writes a line per request, `warn` only the notices); default `info`. */
  logLevel?: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /** Where the proxy's notices go as plain lines instead of `logger` (tests, a log of your own); never the key. */
  log?: (line: string) => void;
  /**
   * Headers for every answer of the proxy (its own errors and the service's relayed answers), written in as
   * each answer is built; default none. Security headers for a whole app belong in its own middleware (the
   * demo server uses Hono's `secureHeaders`).
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * Support desks (README, "Support desks"): the queue webhook's receiver at `POST /queue-events`, the agents'
   * event stream at `GET /queue-events`, the dequeue and the reads and hangup of a dequeued call. Without it
   * those routes answer as unknown ones.
   */
  queues?: QueueOptions;
}

/** A web-standard handler, mountable in any server that speaks `Request`/`Response`. */
export type VoiceProxy = ((request: Request) => Promise<Response>) & {
  /**
   * Ends the user's current browser session at the service (logout) and, when a call of it was
   * running, hangs the call up and resolves only once a read shows it over.
   *
   * @remarks
   * Rejects when it could not, with an error whose `status` and `code` say why: `504 cleanup_unknown` when
   * the call could not be proven ended within `revokeWaitMs`, or the service's own error
   * (`503 upstream_unavailable`, ...). Log the user out anyway; say that the cleanup is unproven.
   */
  revokeSessions(user: ProxyUser): Promise<void>;
  /** The key's budget: what it holds now (for metrics), whether its store answers, and closing it. */
  budget: Pick<KeyBudget, 'snapshot' | 'ping' | 'close'>;
  /** The proxy's metrics (prom-client's registry of its own): `createOpsHandler` serves them at `/metrics`. */
  metrics: ProxyMetrics['registry'];
  /** Whether the service (and the shared stores, when configured) answer: `/readyz`. */
  ready(): Promise<Readiness>;
};

/** The first segment of a route: where the path a mount prefix may precede begins. */
const ROUTE_START = /\/(?:browser-sessions|browser-calls|queue-events|queues|calls)(?=\/|$)/g;

/** Every route's shape, whatever its method: a prefix with a route segment in it (`/calls/voice`) is passed over. */
const ROUTE_SHAPE = /^\/(?:browser-sessions(?:\/[^/]+)?|browser-calls(?:\/[^/]+(?:\/hangup)?)?|queue-events|queues(?:\/[^/]+\/dequeue)?|calls(?:\/[^/]+(?:\/hangup)?)?)$/;

/**
 * The route part of a request's path, whatever prefix the handler is mounted under: `/voice/browser-calls/x`,
 * `/api/phone/browser-calls/x` and `/browser-calls/x` (Express's `app.use('/voice', ...)` strips its prefix)
 * all route as `/browser-calls/x`. The first route segment from which the rest has a route's shape decides,
 * else the first route segment; a path without one is no route.
 */
export function routePath(request: Request): string {
  const path = getPath(request);
  const starts = Array.from(path.matchAll(ROUTE_START), (match) => match.index);
  const at = starts.find((start) => ROUTE_SHAPE.test(path.slice(start))) ?? starts[0];
  return at === undefined ? path : path.slice(at);
}

/** Time between the reads by which `revokeSessions` proves a call ended. */
const REVOKE_READ_INTERVAL_MS = 300;

/** The checks every request passes before a route, the service's webhook included: same-site, body size. */
function mountRequestGuards(app: Hono<ProxyEnv>, options: VoiceProxyOptions, headers: Readonly<Record<string, string>>): void {
  // Every answer is built `no-store` (relay, errorResponse). A server's POST (the webhook) sends neither
  // Origin nor Sec-Fetch-Site, so it passes; a browser page's cross-site one does not.
  app.use('*', refuseCrossSite({ trustedOrigins: options.trustedOrigins ?? [] }));
  const limitBody = bodyLimit({ maxSize: 64 * 1024, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 64 KB'), headers) });
  // A GET or HEAD carries no body: the limit is for the others.
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
}

/** The checks every user's request passes after those: a logged-in user, the user's rate. */
function mountUserGuards(app: Hono<ProxyEnv>, options: VoiceProxyOptions, log: (line: string) => void): void {
  app.use('*', async (c, next) => {
    const user = await options.authenticate(c.req.raw);
    if (!user) throw new HttpError(401, 'unauthenticated', 'log in first');
    c.set('user', user);
    c.set('subject', subjectOf(user));
    await next();
  });
  if (options.rateLimit !== false) app.use('*', userRateLimit(options.rateLimit ?? {}, (c) => c.get('subject'), log, (c) => isCleanup(c.req.method, routePath(c.req.raw))));
}

/**
 * A hangup (of a browser call or a dequeued one) or a session's end: never refused by the proxy's own limits
 * (DESIGN.md, "The key's quota is a budget").
 */
export function isCleanup(method: string, route: string): boolean {
  return (method === 'POST' && /^\/(?:browser-calls|calls)\/[^/]+\/hangup$/.test(route)) || (method === 'DELETE' && /^\/browser-sessions\/[^/]+$/.test(route));
}

/**
 * The service's door, watched: each answer teaches the budget its rate-limit headers and tells the readiness
 * the service is there, and each exchange is timed and counted, and told to the request it serves.
 */
function observed(upstream: Upstream, budget: KeyBudget, metrics: ProxyMetrics, heard: (status: number) => void): Upstream {
  return async (request) => {
    const started = performance.now();
    const done = (status: number) => {
      metrics.upstream(routeTemplate(request.path), request.method, status, (performance.now() - started) / 1000);
      noteUpstreamStatus(status);
      heard(status);
    };
    try {
      const response = await upstream(request);
      budget.observe(response.status, response.headers);
      done(response.status);
      return response;
    } catch (error) {
      done(0);
      throw error;
    }
  };
}

/**
 * Creates the proxy.
 *
 * @example
 * ```ts
 * const voice = createVoiceProxy({ baseUrl, apiKey, authenticate: async (request) => lookUpYourUser(request) });
 * app.all('/voice/*', (c) => voice(c.req.raw)); // Hono; under any prefix, or none
 * ```
 */
export function createVoiceProxy(options: VoiceProxyOptions): VoiceProxy {
  const logger = options.logger === false ? null : (options.logger ?? defaultLogger([options.apiKey], options.logLevel));
  const log = redactingLog([options.apiKey], options.log ?? (logger ? (line) => logger.warn(line) : undefined));
  const budget = options.budget === false ? noBudget() : createKeyBudget({ log, ...(options.budget?.store ? { store: options.budget.store } : {}) });
  const metrics = createProxyMetrics(budget);
  const raw = createUpstream(options);
  // The readiness probe goes through the watched door below, so its answer teaches the budget too.
  let upstream: Upstream = raw;
  const readiness = createReadiness({
    upstream: (request) => upstream(request),
    budget,
    sharedBudget: Boolean(options.budget && options.budget.store),
    ...(options.rateLimit && options.rateLimit.store ? { rateStore: options.rateLimit.store } : {}),
  });
  upstream = observed(raw, budget, metrics, readiness.heard);
  const headers = options.headers ?? {};
  const relayer = createRelay(log, headers);
  const { ownSession, ownCall, ownQueueCall } = createOwnership(upstream, relayer);
  const agents = createAgents(upstream, relayer.ensureOk);
  const cleanup = createSessionCleanup(upstream, relayer, { waitMs: options.revokeWaitMs ?? 10_000, intervalMs: REVOKE_READ_INTERVAL_MS, log });
  const queues = options.queues
    ? createQueueRoutes(options.queues, { upstream, relay: relayer.relay, ensureOk: relayer.ensureOk, ownQueueCall, agents, budget, log, headers })
    : undefined;
  const app = new Hono<ProxyEnv>({ getPath: routePath });

  // First, so it times and logs every answer, the guards' refusals included.
  app.use('*', requestLog(logger, metrics, routePath));
  mountRequestGuards(app, options, headers);
  // Before the login: the service's webhook is signed, not logged in.
  queues?.mountReceiver(app);
  mountUserGuards(app, options, log);
  mountBrowserRoutes(app, { upstream, relay: relayer.relay, ownSession, ownCall, agents, cleanup, budget });
  queues?.mountUserRoutes(app);
  finishApp(app, 'voice proxy', 'no such route', log, headers);

  const handler = (request: Request) => Promise.resolve(app.fetch(request));
  return Object.assign(handler, {
    revokeSessions: (user: ProxyUser): Promise<void> => cleanup.revoke(subjectOf(user)),
    budget: { snapshot: budget.snapshot, ping: budget.ping, close: budget.close },
    metrics: metrics.registry,
    ready: readiness.check,
  });
}
