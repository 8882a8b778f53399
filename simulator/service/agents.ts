import { HttpError } from '../../contract/http-error.js';
import type { Agent } from './model.js';
import { newId, type Owned } from './resources.js';

/**
 * The simulated service's agents (spec 4.7 `/agents`): one webrtc agent per external subject and API key,
 * the identity a browser session registers as.
 */

/** Every agent the service knows, each under the key that created it. */
export class AgentDirectory {
  private readonly agents = new Map<string, Owned<Agent>>();

  constructor(private readonly now: () => number) {}

  /** Creates the subject's agent; `409 agent_exists` when the key already has one for it. */
  create(owner: string, input: { name: string; externalSubject: string }): Agent {
    const existing = this.find(owner, input.externalSubject);
    if (existing) throw new HttpError(409, 'agent_exists', 'an agent exists for this externalSubject; list agents to find it');
    const createdAt = new Date(this.now()).toISOString();
    const agent: Agent = { id: newId('ag'), name: input.name, type: 'webrtc', externalSubject: input.externalSubject, createdAt };
    this.agents.set(agent.id, { owner, value: agent });
    return agent;
  }

  /** The key's agents, oldest first; with a subject, only that subject's. */
  list(owner: string, externalSubject?: string): Agent[] {
    return [...this.agents.values()]
      .filter((a) => a.owner === owner && (externalSubject === undefined || a.value.externalSubject === externalSubject))
      .map((a) => a.value);
  }

  /** The key's agent of this subject, if any. */
  find(owner: string, externalSubject: string): Agent | undefined {
    return this.list(owner, externalSubject)[0];
  }

  /** Forgets every agent (simulator reset). */
  clear(): void {
    this.agents.clear();
  }
}
