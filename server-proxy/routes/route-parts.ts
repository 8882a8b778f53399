import type { Context } from 'hono';
import { createAgents, type AgentIds, type Agents } from '../desk/agents.js';
import type { KeyBudget } from '../budget/key-budget.js';
import { createOwnership } from '../access/ownership.js';
import type { Relay } from '../upstream/relay.js';
import { createSessionCleanup, type SessionCleanup, type SessionCleanupOptions } from '../upstream/session-cleanup.js';
import type { ProxyUser } from '../access/subject.js';
import { heardBy, type Upstream } from '../upstream/upstream.js';
import { heardStream, type UpstreamStream } from '../upstream/upstream-stream.js';
import type { Clock } from '../time/clock.js';

/**
 * What a route's handler works through, made for each request: its door to the service tells the request what
 * the service answered (`upstreamStatus` on the context, which the request log writes), and the ownership
 * checks, agents and cleanup go through that door.
 */

/**
 * The proxy's Hono environment: the logged-in user and their subject, set before any user's route runs, and
 * the status of the service's last answer to this request (0: no answer came), set by its door.
 */
export type ProxyEnv = { Variables: { subject: string; user: ProxyUser; upstreamStatus?: number } };

export type ProxyContext = Context<ProxyEnv>;

/** One request's parts; see the file comment. */
export interface RouteParts {
  /** This request's door to the service. */
  upstream: Upstream;
  /** The proxy's door heard by no request, for work that outlives the request (a claimed call's watch). */
  background: Upstream;
  /** This request's door for a file: the answer's body streamed (a recording's audio). */
  download: UpstreamStream;
  relay: Relay['relay'];
  ensureOk: Relay['ensureOk'];
  ownSession: ReturnType<typeof createOwnership>['ownSession'];
  ownCall: ReturnType<typeof createOwnership>['ownCall'];
  ownQueueCall: ReturnType<typeof createOwnership>['ownQueueCall'];
  agents: Agents;
  cleanup: Pick<SessionCleanup, 'afterLostCreate'>;
  budget: KeyBudget;
  log: (line: string) => void;
  /** The integrator's headers, for the answers the proxy writes itself. */
  headers: Readonly<Record<string, string>>;
  /** The proxy's one clock. */
  clock: Clock;
}

/** A route's handler: its parts, the request, and the route's `:id` (empty on a route without one). */
export type Handler<Parts> = (parts: Parts, c: ProxyContext, id: string) => Promise<Response>;

/** What the parts of every request share: the proxy's door, relay, budget, agents' ids and cleanup's pacing. */
export interface SharedParts {
  upstream: Upstream;
  stream: UpstreamStream;
  relayer: Relay;
  budget: KeyBudget;
  agentIds: AgentIds;
  cleanup: SessionCleanupOptions;
  log: (line: string) => void;
  headers: Readonly<Record<string, string>>;
  clock: Clock;
}

/** The parts of the request `c`, over `shared`. */
export function routePartsFor(shared: SharedParts, c: ProxyContext): RouteParts {
  const upstream = heardBy(shared.upstream, (status) => c.set('upstreamStatus', status));
  const { relayer } = shared;
  return {
    upstream,
    background: shared.upstream,
    download: heardStream(shared.stream, (status) => c.set('upstreamStatus', status)),
    relay: relayer.relay,
    ensureOk: relayer.ensureOk,
    ...createOwnership(upstream, relayer),
    agents: createAgents(upstream, relayer.ensureOk, shared.agentIds),
    cleanup: createSessionCleanup(upstream, relayer, shared.cleanup),
    budget: shared.budget,
    log: shared.log,
    headers: shared.headers,
    clock: shared.clock,
  };
}
