import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { refuseCrossSite } from '../access/cross-site.js';
import { errorResponse, finishApp, HttpError } from '../../contract/http-error.js';
import { redactingLog } from '../ops/redact.js';
import { subjectOf, type ProxyUser } from '../access/subject.js';
import { createDesk, type QueueOptions } from '../routes/queue-routes.js';
import { createRelay } from '../upstream/relay.js';
import { routePartsFor, type ProxyContext, type ProxyEnv, type SharedParts } from '../routes/route-parts.js';
import { isCleanup, mountRoutes, routePath, routeTemplate } from '../routes/routes.js';
import { createSessionCleanup } from '../upstream/session-cleanup.js';
import type { BudgetStore } from '../budget/budget-store.js';
import { createKeyBudget, noBudget, type KeyBudget } from '../budget/key-budget.js';
import { createProxyMetrics, type ProxyMetrics } from '../ops/metrics.js';
import { createReadiness, type Readiness } from '../ops/readiness.js';
import { defaultLogger, requestLog, type ProxyLogger } from '../ops/request-log.js';
import { createUpstream, type Upstream } from '../upstream/upstream.js';
import { refuseConsumedBody } from '../access/consumed-body.js';
import { checkRequiredOptions } from './proxy-setup.js';
import { createStartCheck, type StartCheck } from './start-check.js';
import { createUpstreamStream, type UpstreamStream } from '../upstream/upstream-stream.js';
import { userRateLimit, type UserRateLimitOptions } from '../access/user-rate-limit.js';
import { systemClock, type Clock } from '../time/clock.js';

/**
 * `createVoiceProxy`: the server piece that holds the persistent key and forwards the page's six browser
 * operations, each only for the logged-in user's own resources; with `queues`, also the support desk's
 * routes (`createDesk`). Its guards are here, in order; its routes are the table `ROUTES`.
 */

export type { ProxyUser, SupervisorRole } from '../access/subject.js';
export type { ProxyLogger } from '../ops/request-log.js';
export type { Readiness } from '../ops/readiness.js';
export type { QueueOptions } from '../routes/queue-routes.js';

/** Options of {@link createVoiceProxy}; docs/proxy.md, "Options", lists them with defaults. */
export interface VoiceProxyOptions {
  /** `{base_url}` of the voice service, ending in its path prefix (`/api`); checked by a read at creation. */
  baseUrl: string;
  /** The persistent API key; never sent to the page, never logged. */
  apiKey: string;
  /** Returns the user of the request, or null when nobody is logged in. */
  authenticate(request: Request): Promise<ProxyUser | null> | ProxyUser | null;
  /**
   * Reads the service once at creation (one request of the key's quota) to prove `baseUrl` reaches its API
   * (`checked`); default true. `false` skips the read, for a test whose service answers a script.
   */
  checkService?: boolean;
  /** Sends the requests to the service instead of the proxy's own keep-alive pool (undici), e.g. a test double. */
  fetch?: typeof fetch;
  /** Upstream request limit in ms (default 10 s); past it the page gets a `504` with a code. */
  timeoutMs?: number;
  /**
   * The time every timer and deadline of the proxy runs on, and every time it reads; default the process's.
   * A test passes a fake one (the library's `FakeClock` fits) to move time instead of waiting.
   */
  clock?: Clock;
  /** Per-user limits below the key's quota (default 80 a minute, 5,000 an hour, in memory); `false` turns them off. */
  rateLimit?: UserRateLimitOptions | false;
  /**
   * The key's quota as a budget shared by every user (docs/operations.md, "The key's budget"): learned from the service's
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
   * Support desks (docs/desk.md): the queue webhook's receiver at `POST /queue-events`, the agents'
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
  /**
   * The start-up read: resolves once the service answered it as its API; rejects with a
   * {@link VoiceProxySetupError}: `base_url_without_prefix` (the proxy then answers every request `503` with
   * that code) or `service_unreachable` (requests go on). Either is also one line in the log; awaiting it is
   * optional. Resolved at once with `checkService: false`.
   */
  checked: Promise<void>;
};

/** Time between the reads by which `revokeSessions` proves a call ended. */
const REVOKE_READ_INTERVAL_MS = 300;

/** The checks every request passes before a route, the service's webhook included: same-site, body size. */
function mountRequestGuards(app: Hono<ProxyEnv>, options: VoiceProxyOptions, headers: Readonly<Record<string, string>>, log: (line: string) => void): void {
  // Every answer is built `no-store` (relay, errorResponse). A server's POST (the webhook) sends neither
  // Origin nor Sec-Fetch-Site, so it passes; a browser page's cross-site one does not.
  app.use('*', refuseCrossSite({ trustedOrigins: options.trustedOrigins ?? [] }));
  const limitBody = bodyLimit({ maxSize: 64 * 1024, onError: () => errorResponse(new HttpError(413, 'payload_too_large', 'the body is over 64 KB'), headers) });
  // A GET or HEAD carries no body: the limit is for the others.
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));
  app.use('*', refuseConsumedBody(log));
}

/** While the start-up read proved the base URL wrong, every request gets the error that says so. */
function mountStartCheck(app: Hono<ProxyEnv>, check: StartCheck | undefined): void {
  if (!check) return;
  app.use('*', async (_c, next) => {
    const refusal = await check.refusal();
    if (refusal) throw refusal;
    await next();
  });
}

/** The checks every user's request passes after those: a logged-in user, the user's rate. */
function mountUserGuards(app: Hono<ProxyEnv>, options: VoiceProxyOptions, log: (line: string) => void, clock: Clock): void {
  app.use('*', async (c, next) => {
    const user = await options.authenticate(c.req.raw);
    if (!user) throw new HttpError(401, 'unauthenticated', 'log in first');
    c.set('user', user);
    c.set('subject', subjectOf(user));
    await next();
  });
  if (options.rateLimit !== false) app.use('*', userRateLimit(options.rateLimit ?? {}, (c) => c.get('subject'), log, (c) => isCleanup(c.req.method, c.req.path), clock));
}

/**
 * The service's door, watched: each answer teaches the budget its rate-limit headers and tells the readiness
 * the service is there, and each exchange is timed and counted. The request it serves hears of it through its
 * own door (`routePartsFor`).
 */
function observed(upstream: Upstream, budget: KeyBudget, metrics: ProxyMetrics, heard: (status: number) => void, clock: Clock): Upstream {
  return async (request) => {
    const started = clock.now();
    const done = (status: number) => {
      metrics.upstream(routeTemplate(request.path), request.method, status, (clock.now() - started) / 1000);
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

/** The file door, watched as the service's door is: the budget, the metrics and the readiness hear its answers. */
function observedStream(stream: UpstreamStream, budget: KeyBudget, metrics: ProxyMetrics, heard: (status: number) => void, clock: Clock): UpstreamStream {
  return async (request) => {
    const started = clock.now();
    const done = (status: number) => {
      metrics.upstream(routeTemplate(request.path), 'GET', status, (clock.now() - started) / 1000);
      heard(status);
    };
    try {
      const answer = await stream(request);
      const { status, headers } = answer.streamed ? answer : answer.response;
      budget.observe(status, headers);
      done(status);
      return answer;
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
  checkRequiredOptions(options);
  // The one place the proxy's time is chosen: everything below runs on it.
  const clock = options.clock ?? systemClock;
  const logger = options.logger === false ? null : (options.logger ?? defaultLogger([options.apiKey], options.logLevel));
  const log = redactingLog([options.apiKey], options.log ?? (logger ? (line) => logger.warn(line) : undefined));
  // Read through the clock, not detached from it: a clock may be a class instance (the testing kit's `FakeClock`).
  const now = () => clock.now();
  const budget = options.budget === false ? noBudget(now) : createKeyBudget({ log, now, ...(options.budget?.store ? { store: options.budget.store } : {}) });
  const metrics = createProxyMetrics(budget);
  const raw = createUpstream({ ...options, clock });
  // The readiness probe goes through the watched door below, so its answer teaches the budget too.
  let upstream: Upstream = raw;
  const readiness = createReadiness({
    upstream: (request) => upstream(request),
    budget,
    clock,
    sharedBudget: Boolean(options.budget && options.budget.store),
    ...(options.rateLimit && options.rateLimit.store ? { rateStore: options.rateLimit.store } : {}),
  });
  upstream = observed(raw, budget, metrics, readiness.heard, clock);
  const startCheck = options.checkService === false ? undefined : createStartCheck(upstream, options.baseUrl, log);
  const headers = options.headers ?? {};
  const relayer = createRelay(log, headers);
  const cleanupOptions = { waitMs: options.revokeWaitMs ?? 10_000, intervalMs: REVOKE_READ_INTERVAL_MS, log, clock };
  const cleanup = createSessionCleanup(upstream, relayer, cleanupOptions);
  const stream = observedStream(createUpstreamStream({ ...options, clock }), budget, metrics, readiness.heard, clock);
  const shared: SharedParts = { upstream, stream, relayer, budget, agentIds: new Map(), cleanup: cleanupOptions, log, headers, clock };
  const partsFor = (c: ProxyContext) => routePartsFor(shared, c);
  const desk = options.queues ? createDesk(options.queues, { upstream, ensureOk: relayer.ensureOk, budget, log, clock }) : undefined;
  const app = new Hono<ProxyEnv>({ getPath: routePath });

  // First, so it times and logs every answer, the guards' refusals included.
  app.use('*', requestLog(logger, metrics, clock));
  mountStartCheck(app, startCheck);
  mountRequestGuards(app, options, headers, log);
  // Before the login: the service's webhook is signed, not logged in.
  mountRoutes(app, (owner) => owner === 'signature', partsFor, desk);
  mountUserGuards(app, options, log, clock);
  mountRoutes(app, (owner) => owner !== 'signature', partsFor, desk);
  finishApp(app, 'voice proxy', 'no such route', log, headers);

  const handler = (request: Request) => Promise.resolve(app.fetch(request));
  return Object.assign(handler, {
    revokeSessions: (user: ProxyUser): Promise<void> => cleanup.revoke(subjectOf(user)),
    budget: { snapshot: budget.snapshot, ping: budget.ping, close: budget.close },
    metrics: metrics.registry,
    ready: readiness.check,
    checked: startCheck ? startCheck.checked : Promise.resolve(),
  });
}
