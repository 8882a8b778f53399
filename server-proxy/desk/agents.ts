import { HttpError } from '../../contract/http-error.js';
import type { Relay } from '../upstream/relay.js';
import { agentName, type ProxyUser } from '../access/subject.js';
import type { Upstream } from '../upstream/upstream.js';

/** The user's webrtc agent at the service, which every browser session of theirs runs under (spec 4.7). */

/** What {@link createAgents} returns. */
export interface Agents {
  /**
   * Makes sure `subject`'s agent exists, creating it on the first press, and resolves its id (a dequeue's
   * `connectTo`, and how a queue call is known to be the user's); throws the page's error when it cannot.
   */
  ensure(user: ProxyUser, subject: string): Promise<string>;
  /** The id of `subject`'s agent when it has one, never creating it (another user's, for a supervisor). */
  find(subject: string): Promise<string | null>;
  /** The cached agent may be gone (service reset, agent removed): the next press looks it up again. */
  forget(subject: string): boolean;
}

/** The agent ids known by subject: one map per proxy, kept across requests. */
export type AgentIds = Map<string, string>;

/**
 * The user's webrtc agent, created once per subject (spec 4.7: `409 agent_exists` means list agents to find
 * it), through `upstream`; the ids found are kept in `known`.
 */
export function createAgents(upstream: Upstream, ensureOk: Relay['ensureOk'], known: AgentIds = new Map()): Agents {
  return {
    async ensure(user: ProxyUser, subject: string): Promise<string> {
      const cached = known.get(subject);
      if (cached !== undefined) return cached;
      const created = await upstream({ method: 'POST', path: '/agents', body: { name: agentName(user, subject), type: 'webrtc', externalSubject: subject } });
      let id = (created.body as { id?: string } | undefined)?.id;
      if (created.status === 409) {
        const listed = ensureOk(await upstream({ method: 'GET', path: '/agents', query: { externalSubject: subject } }));
        id = (listed.body as { agents?: Array<{ id: string; externalSubject: string }> }).agents?.find((a) => a.externalSubject === subject)?.id;
      } else {
        ensureOk(created);
      }
      if (!id) throw new HttpError(502, 'upstream_invalid_response', 'the voice service did not return the agent');
      known.set(subject, id);
      return id;
    },
    async find(subject: string): Promise<string | null> {
      const cached = known.get(subject);
      if (cached !== undefined) return cached;
      const listed = ensureOk(await upstream({ method: 'GET', path: '/agents', query: { externalSubject: subject } }));
      const id = (listed.body as { agents?: Array<{ id?: unknown; externalSubject?: unknown }> }).agents?.find((a) => a.externalSubject === subject)?.id;
      if (typeof id !== 'string') return null;
      known.set(subject, id);
      return id;
    },
    forget: (subject: string) => known.delete(subject),
  };
}
