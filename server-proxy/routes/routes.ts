import type { Hono } from 'hono';
import { getPath } from 'hono/utils/url';
import { readAvailability, setAvailability } from './availability-routes.js';
import { createSession, endSession, hangUpCall, readCall, readCurrent, readSession, startCall } from './browser-routes.js';
import { dequeue, follow, hangUpQueueCall, listOwnCalls, listQueues, readQueueCall, type Desk, type Queues } from './queue-routes.js';
import { receiveWebhook } from './queue-webhook-receiver.js';
import type { Handler, ProxyContext, ProxyEnv, RouteParts } from './route-parts.js';
import { downloadRecording, listRecordings, listSupervisedCalls, monitorCall, readRecording, startRecording, stopRecording } from './supervision-routes.js';

/**
 * The proxy's routes, declared once: {@link ROUTES} gives each its method, its path as Hono writes it (which is
 * also the route's name in the log), its handler, who may call it and its class in the key's budget. The Hono
 * routes are registered from it, and the mount prefix, the log's route template and the per-user limit's
 * exemptions are read from it.
 */

/**
 * Who may call a route, and what the handler proves before it touches a resource (`createOwnership`):
 * - `signature`: the service, the body signed with the queues' notifySecret; no login.
 * - `user`: the logged-in user, for what the service lists under their subject or their agent.
 * - `session`, `call`: the user, for a browser session or call of theirs (`ownSession`, `ownCall`).
 * - `queue`: the user, for a queue that `queuesFor(user)` allows.
 * - `agent-call`: the user, for a queue's call bridged to their agent, or a monitor leg ringing it (`ownQueueCall`).
 * - `supervisor`: a user `authenticate` made a supervisor; for anyone else the route answers as an unknown one.
 * - `supervised-call`: a supervisor, for a call in progress of an agent or queue they supervise (`reachCall`, `reachRecording`).
 * - `own-call`: the user, for a browser call of theirs or a queue's call bridged to their agent.
 * - `recording`: the user, for a recording (or the recordings) of an `own-call` or a `supervised-call`.
 */
export type RouteOwner = 'signature' | 'user' | 'session' | 'call' | 'queue' | 'agent-call' | 'supervisor' | 'supervised-call' | 'own-call' | 'recording';

/**
 * How the proxy's own limits treat a route (docs/operations.md, "The key's budget"), highest priority first:
 * - `cleanup`: a hangup or a session's end: never refused by the proxy's limits, nor counted per user.
 * - `kept`: counted per user; never refused by the key's budget: the reads of what is in progress, a dequeue,
 *   whose caller is on the line already, and the start and stop of a recording of a call on the line.
 * - `recovery`: refused `429 rate_limited` when it would eat the reads kept for the calls in progress (the
 *   reads and downloads of recordings among them).
 * - `new`: a new session or call, a monitor leg included, admitted by the budget (`admitSession`, `admitCall`).
 * - `none`: no user and no request to the service (the webhook).
 */
export type BudgetClass = 'cleanup' | 'kept' | 'recovery' | 'new' | 'none';

interface RouteShape {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Below the mount prefix, as Hono writes it (`/browser-calls/:id`); the log names the route by it. */
  path: string;
  owner: RouteOwner;
  budget: BudgetClass;
}

/** A route: a browser route's handler works through the request's parts; a desk route's, with the desk too. */
export type Route = (RouteShape & { desk?: false; handler: Handler<RouteParts> }) | (RouteShape & { desk: true; handler: Handler<Queues> });

/** Every route of the proxy; those with `desk` only when `createVoiceProxy` has `queues` (`createDesk`). */
export const ROUTES: readonly Route[] = [
  { method: 'POST', path: '/browser-sessions', owner: 'user', budget: 'new', handler: createSession },
  { method: 'GET', path: '/browser-sessions', owner: 'user', budget: 'recovery', handler: readCurrent },
  { method: 'GET', path: '/browser-sessions/:id', owner: 'session', budget: 'kept', handler: readSession },
  { method: 'DELETE', path: '/browser-sessions/:id', owner: 'session', budget: 'cleanup', handler: endSession },
  { method: 'POST', path: '/browser-calls', owner: 'session', budget: 'new', handler: startCall },
  { method: 'GET', path: '/browser-calls/:id', owner: 'call', budget: 'kept', handler: readCall },
  { method: 'POST', path: '/browser-calls/:id/hangup', owner: 'call', budget: 'cleanup', handler: hangUpCall },
  { method: 'POST', path: '/queue-events', owner: 'signature', budget: 'none', desk: true, handler: receiveWebhook },
  { method: 'GET', path: '/queue-events', owner: 'queue', budget: 'recovery', desk: true, handler: follow },
  { method: 'GET', path: '/queues', owner: 'queue', budget: 'recovery', desk: true, handler: listQueues },
  { method: 'POST', path: '/queues/:id/dequeue', owner: 'queue', budget: 'kept', desk: true, handler: dequeue },
  { method: 'GET', path: '/availability', owner: 'user', budget: 'kept', desk: true, handler: readAvailability },
  { method: 'PUT', path: '/availability', owner: 'user', budget: 'kept', desk: true, handler: setAvailability },
  { method: 'GET', path: '/calls', owner: 'user', budget: 'recovery', desk: true, handler: listOwnCalls },
  { method: 'GET', path: '/calls/:id', owner: 'agent-call', budget: 'kept', handler: readQueueCall },
  { method: 'POST', path: '/calls/:id/hangup', owner: 'agent-call', budget: 'cleanup', handler: hangUpQueueCall },
  { method: 'GET', path: '/supervised-calls', owner: 'supervisor', budget: 'recovery', handler: listSupervisedCalls },
  { method: 'POST', path: '/calls/:id/monitor', owner: 'supervised-call', budget: 'new', handler: monitorCall },
  { method: 'POST', path: '/calls/:id/recordings', owner: 'own-call', budget: 'kept', handler: startRecording },
  { method: 'POST', path: '/calls/:id/recordings/:rid/stop', owner: 'own-call', budget: 'kept', handler: stopRecording },
  { method: 'GET', path: '/recordings', owner: 'recording', budget: 'recovery', handler: listRecordings },
  { method: 'GET', path: '/recordings/:id', owner: 'recording', budget: 'recovery', handler: readRecording },
  { method: 'GET', path: '/recordings/:id/audio', owner: 'recording', budget: 'recovery', handler: downloadRecording },
];

/** Each route with the shape of the paths it answers: a `:param` is one segment. */
const SHAPES = ROUTES.map((route) => ({ route, shape: new RegExp(`^${route.path.replace(/:[^/]+/g, '[^/]+')}$`) }));

/** The segments a route begins with: where the path a mount prefix may precede begins. */
const FIRST_SEGMENTS = new Set(ROUTES.map((route) => route.path.split('/')[1]));

/** The route `path` has the shape of, for `method` when given, else for any method. */
export function routeOf(path: string, method?: string): Route | undefined {
  return SHAPES.find(({ route, shape }) => (method === undefined || route.method === method) && shape.test(path))?.route;
}

/**
 * The route part of a request's path, whatever prefix the handler is mounted under: `/voice/browser-calls/x`,
 * `/api/phone/browser-calls/x` and `/browser-calls/x` (Express's `app.use('/voice', ...)` strips its prefix)
 * all route as `/browser-calls/x`. The first route segment from which the rest has a route's shape decides,
 * else the first route segment; a path without one is no route.
 */
export function routePath(request: Request): string {
  const path = getPath(request);
  const segments = path.split('/');
  const starts = segments.flatMap((segment, at) => (at > 0 && FIRST_SEGMENTS.has(segment) ? ['/' + segments.slice(at).join('/')] : []));
  return starts.find((start) => routeOf(start) !== undefined) ?? starts[0] ?? path;
}

/**
 * A path as a template, so a log or metric label never names a user's resource: the route's path when it has a
 * route's shape (the service's paths mirror the proxy's routes), else the segment after the first masked.
 */
export function routeTemplate(path: string): string {
  return routeOf(path)?.path ?? path.replace(/^(\/[^/]+)\/[^/]+/, '$1/:id');
}

/**
 * A hangup (of a browser call or a dequeued one) or a session's end: never refused by the proxy's own limits
 * (docs/operations.md, "The key's budget").
 */
export function isCleanup(method: string, route: string): boolean {
  return routeOf(route, method)?.budget === 'cleanup';
}

/**
 * Registers on `app` the routes `owners` names (the webhook's before the login, the user's after it), each
 * answered by its handler over the request's parts; the desk's only when there is a `desk`.
 */
export function mountRoutes(app: Hono<ProxyEnv>, owners: (owner: RouteOwner) => boolean, partsFor: (c: ProxyContext) => RouteParts, desk: Desk | undefined): void {
  for (const route of ROUTES) {
    if (!owners(route.owner)) continue;
    const id = (c: ProxyContext) => c.req.param('id') ?? '';
    if (!route.desk) app.on(route.method, route.path, (c) => route.handler(partsFor(c), c, id(c)));
    else if (desk) app.on(route.method, route.path, (c) => route.handler({ ...partsFor(c), ...desk }, c, id(c)));
  }
}
