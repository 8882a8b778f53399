import { describe, expect, it } from 'vitest';
import { agentsCallsInProgress, isAgentsMonitorLeg, isAgentsQueueCall, reachesQueueCall, supervisesQueueCall, type CallViewer } from '../../../server-proxy/access/call-reach.js';
import type { QueueCall } from '../../../server-proxy/desk/queue-calls.js';

/** The one place the proxy decides whose a generic call is: the agent's, a supervisor's, or nobody's. */

const call = (fields: Partial<QueueCall>): QueueCall => ({ id: 'c_1', queueId: 'q_sales', from: '+12025550121', to: '+12025550150', state: 'established', agentId: 'ag_me', createdAt: '2026-11-29T10:00:00.000Z', ...fields });

/** A viewer whose reads are counted, so a test sees which of them a decision needed. */
function viewer(agentId: string, queues: string[], agents: string[]): CallViewer & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    agentId: async () => (reads.push('agent'), agentId),
    queues: new Set(queues),
    agents: async () => (reads.push('agents'), new Set(agents)),
  };
}

describe('whose a queue call is', () => {
  it("is the agent's once a dequeue bridged it there, in any state; a caller no agent took is nobody's", () => {
    expect(isAgentsQueueCall(call({}), 'ag_me')).toBe(true);
    expect(isAgentsQueueCall(call({ state: 'finished' }), 'ag_me')).toBe(true);
    expect(isAgentsQueueCall(call({ agentId: 'ag_other' }), 'ag_me')).toBe(false);
    expect(isAgentsQueueCall(call({ agentId: null, state: 'queued' }), 'ag_me')).toBe(false);
  });

  it("makes a monitor leg the agent's it rings, and nothing else a leg", () => {
    expect(isAgentsMonitorLeg({ kind: 'monitor', agentId: 'ag_me', state: 'ringing' }, 'ag_me')).toBe(true);
    expect(isAgentsMonitorLeg({ kind: 'monitor', agentId: 'ag_other' }, 'ag_me')).toBe(false);
    expect(isAgentsMonitorLeg(call({}), 'ag_me')).toBe(false);
    expect(isAgentsMonitorLeg(null, 'ag_me')).toBe(false);
  });

  it('lets a supervisor reach the callers of their queues and those bridged to their agents', () => {
    expect(supervisesQueueCall(call({ agentId: 'ag_x' }), new Set(['q_sales']), new Set())).toBe(true);
    expect(supervisesQueueCall(call({ queueId: 'q_other', agentId: 'ag_x' }), new Set(['q_sales']), new Set(['ag_x']))).toBe(true);
    expect(supervisesQueueCall(call({ queueId: 'q_other', agentId: 'ag_y' }), new Set(['q_sales']), new Set(['ag_x']))).toBe(false);
    expect(supervisesQueueCall(call({ queueId: 'q_other', agentId: null }), new Set(), new Set(['ag_x']))).toBe(false);
  });

  it('reaches as asked: own, supervised or either, reading the agents only when the queues do not decide', async () => {
    const mine = call({ queueId: 'q_other' });
    const own = viewer('ag_me', [], []);
    expect(await reachesQueueCall(mine, 'own', own)).toBe(true);
    expect(await reachesQueueCall(mine, 'supervised', own)).toBe(false);
    expect(own.reads).toEqual(['agent', 'agents']);
    const ofQueue = viewer('ag_sup', ['q_sales'], []);
    expect(await reachesQueueCall(call({}), 'either', ofQueue)).toBe(true);
    expect(ofQueue.reads).toEqual([]);
    expect(await reachesQueueCall(call({}), 'own', ofQueue)).toBe(false);
    const ofAgent = viewer('ag_sup', [], ['ag_me']);
    expect(await reachesQueueCall(mine, 'supervised', ofAgent)).toBe(true);
    expect(ofAgent.reads).toEqual(['agents']);
    expect(await reachesQueueCall(call({ agentId: null }), 'either', viewer('ag_me', ['q_sales'], []))).toBe(false);
  });

  it("lists the agent's calls in progress: its bridged callers, then its monitor legs ringing or up", () => {
    const callers = [call({ id: 'c_mine' }), call({ id: 'c_ringing', state: 'dequeuing' }), call({ id: 'c_back', state: 'queued' }), call({ id: 'c_done', state: 'finished' }), call({ id: 'c_theirs', agentId: 'ag_other' })];
    const legs = [
      { id: 'c_leg', kind: 'monitor', agentId: 'ag_me', state: 'ringing' },
      { id: 'c_leg_over', kind: 'monitor', agentId: 'ag_me', state: 'finished' },
      { id: 'c_leg_theirs', kind: 'monitor', agentId: 'ag_other', state: 'established' },
    ];
    const listed = agentsCallsInProgress(callers, [...callers, ...legs], 'ag_me') as Array<{ id: string }>;
    expect(listed.map((found) => found.id)).toEqual(['c_mine', 'c_ringing', 'c_leg']);
  });
});
