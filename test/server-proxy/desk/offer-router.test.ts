import { describe, expect, it } from 'vitest';
import { emptyRouterState, route, type RouterAgent, type RouterDecision, type RouterEvent, type RouterOptions, type RouterState } from '../../../server-proxy/desk/offer-router.js';

const OPTIONS: RouterOptions = { offerQueues: new Set(['q1']), wrapUpMs: 5000, unansweredMs: 19_000, offerTtlMs: 30_000, retryAgentMs: 3000, declineHoldMs: 30_000 };

const agent = (agentId: string, idleSince: number, queues = ['q1']): RouterAgent => ({ agentId, availability: 'available', idleSince, queues });

/** Runs `events` from `state`, returning the last state and every decision in order. */
function run(events: RouterEvent[], state: RouterState = emptyRouterState(), options = OPTIONS): [RouterState, RouterDecision[]] {
  const all: RouterDecision[] = [];
  for (const event of events) {
    const [next, decisions] = route(state, event, options);
    state = next;
    all.push(...decisions);
  }
  return [state, all];
}

const arrive = (callId: string, at: number, queueId = 'q1'): RouterEvent => ({ type: 'waiting', callId, queueId, since: at, requeued: false, at });
const present = (a: RouterAgent, at = 0): RouterEvent => ({ type: 'agent', agent: a, at });

describe('the offer router', () => {
  it('offers a waiting caller to the longest-idle available agent', () => {
    const [, decisions] = run([present(agent('a', 200)), present(agent('b', 100)), arrive('c1', 300)]);
    expect(decisions).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'b' }]);
  });

  it('offers nothing in a pull-mode queue', () => {
    const [, decisions] = run([present(agent('a', 0, ['q2'])), arrive('c1', 10, 'q2')]);
    expect(decisions).toEqual([]);
  });

  it('skips away agents, agents not allowed the queue, and agents in wrap-up', () => {
    const away: RouterAgent = { ...agent('a', 0), availability: 'away' };
    const [state, decisions] = run([present(away), present(agent('b', 0, ['q9'])), arrive('c1', 10)]);
    expect(decisions).toEqual([]);
    const [, later] = run([present(agent('b', 0)), { type: 'offered', agentId: 'b', queueId: 'q1', callId: 'c1', at: 20 }, { type: 'read', calls: { queued: [], bridged: [{ callId: 'c1', queueId: 'q1', agentId: 'b', state: 'established' }] }, at: 30 }, { type: 'left', callId: 'c1', at: 40 }, arrive('c2', 41)], state);
    expect(later.filter((d) => d.type === 'offer')).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'b' }]);
    const [, afterWrapUp] = run([present(agent('b', 0)), arrive('c2', 41), { type: 'tick', at: 40 + OPTIONS.wrapUpMs }], state);
    expect(afterWrapUp.filter((d) => d.type === 'offer')).toHaveLength(1);
  });

  it('lets an agent wrap up after an offered call ends, even one no read showed answered', () => {
    const [, decisions] = run([present(agent('a', 0)), arrive('c1', 10), { type: 'offered', agentId: 'a', queueId: 'q1', callId: 'c1', at: 11 }, { type: 'left', callId: 'c1', at: 20 }, arrive('c2', 21)]);
    expect(decisions.filter((d) => d.type === 'offer')).toHaveLength(1);
    const [, later] = run([present(agent('a', 0)), arrive('c1', 10), { type: 'offered', agentId: 'a', queueId: 'q1', callId: 'c1', at: 11 }, { type: 'left', callId: 'c1', at: 20 }, arrive('c2', 21), { type: 'tick', at: 20 + OPTIONS.wrapUpMs }]);
    expect(later.filter((d) => d.type === 'offer')).toHaveLength(2);
  });

  it('never makes more offers on a queue than callers wait in it, nor two to one agent', () => {
    const [, decisions] = run([present(agent('a', 0)), present(agent('b', 1)), present(agent('c', 2)), arrive('c1', 10), arrive('c2', 11), { type: 'tick', at: 12 }]);
    expect(decisions).toEqual([
      { type: 'offer', queueId: 'q1', agentId: 'a' },
      { type: 'offer', queueId: 'q1', agentId: 'b' },
    ]);
  });

  it('offers a declined caller to the next agent, and sets away the agent who let it ring out', () => {
    const start: RouterEvent[] = [present(agent('a', 0)), present(agent('b', 1)), arrive('c1', 10), { type: 'offered', agentId: 'a', queueId: 'q1', callId: 'c1', at: 11 }];
    const [, declined] = run([...start, { type: 'waiting', callId: 'c1', queueId: 'q1', since: 10, requeued: true, at: 15 }]);
    expect(declined.slice(1)).toEqual([{ type: 'settled', agentId: 'a' }, { type: 'offer', queueId: 'q1', agentId: 'b' }]);
    const [state, unanswered] = run([...start, { type: 'waiting', callId: 'c1', queueId: 'q1', since: 10, requeued: true, at: 11 + OPTIONS.unansweredMs }]);
    expect(unanswered.slice(1)).toEqual([{ type: 'settled', agentId: 'a' }, { type: 'away', agentId: 'a' }, { type: 'offer', queueId: 'q1', agentId: 'b' }]);
    expect(state.agents.get('a')?.availability).toBe('away');
  });

  it('does not ring a declined caller back at the only agent, who declined it, until the hold has passed', () => {
    const declined: RouterEvent[] = [present(agent('a', 0)), arrive('c1', 10), { type: 'offered', agentId: 'a', queueId: 'q1', callId: 'c1', at: 11 }, { type: 'waiting', callId: 'c1', queueId: 'q1', since: 10, requeued: true, at: 15 }];
    const [state, decisions] = run([...declined, { type: 'tick', at: 15 + OPTIONS.declineHoldMs - 1 }]);
    expect(decisions).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'a' }, { type: 'settled', agentId: 'a' }]);
    // A caller behind it is not offered to the agent either: the dequeue would take the head, the one declined.
    const [, behind] = run([arrive('c2', 20), { type: 'tick', at: 21 }], state);
    expect(behind).toEqual([]);
    const [, later] = run([{ type: 'tick', at: 15 + OPTIONS.declineHoldMs }], state);
    expect(later).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'a' }]);
  });

  it('offers the declined caller to another agent at once, and another caller to the agent who declined', () => {
    const start: RouterEvent[] = [present(agent('a', 0)), arrive('c1', 10), { type: 'offered', agentId: 'a', queueId: 'q1', callId: 'c1', at: 11 }, { type: 'waiting', callId: 'c1', queueId: 'q1', since: 10, requeued: true, at: 15 }];
    const [, other] = run([...start, present(agent('b', 100), 16)]);
    expect(other.slice(2)).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'b' }]);
    // The declined caller hung up: the next caller is the head, and rings the agent who declined the first.
    const [, next] = run([...start, arrive('c2', 20), { type: 'left', callId: 'c1', at: 21 }]);
    expect(next.slice(2)).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'a' }]);
  });

  it('lets an agent whose session could not ring be a while, and clears a queue found empty', () => {
    const [state, decisions] = run([present(agent('a', 0)), arrive('c1', 10), { type: 'offer-failed', agentId: 'a', reason: 'agent_unavailable', at: 12 }]);
    expect(decisions).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'a' }, { type: 'settled', agentId: 'a' }]);
    const [, retried] = run([{ type: 'tick', at: 12 + OPTIONS.retryAgentMs }], state);
    expect(retried).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'a' }]);
    const [empty] = run([present(agent('a', 0)), arrive('c1', 10), { type: 'offer-failed', agentId: 'a', reason: 'queue_empty', at: 12 }]);
    expect(empty.waiting.get('q1')?.size).toBe(0);
  });

  it('learns from a read a caller whose webhook was lost, and an agent ringing for another replica', () => {
    const read: RouterEvent = { type: 'read', calls: { queued: [{ callId: 'c2', queueId: 'q1', since: 5 }], bridged: [{ callId: 'c1', queueId: 'q1', agentId: 'a', state: 'dequeuing' }] }, at: 20 };
    const [, decisions] = run([present(agent('a', 0)), present(agent('b', 1)), read]);
    expect(decisions).toEqual([{ type: 'offer', queueId: 'q1', agentId: 'b' }]);
  });

  it('forgets an offer nothing settled after its time, so the agent is not stuck', () => {
    const [state] = run([present(agent('a', 0)), arrive('c1', 10)]);
    const [, decisions] = run([{ type: 'tick', at: 10 + OPTIONS.offerTtlMs }], state);
    expect(decisions).toEqual([{ type: 'settled', agentId: 'a' }, { type: 'offer', queueId: 'q1', agentId: 'a' }]);
  });
});
