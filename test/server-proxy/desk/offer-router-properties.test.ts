import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { emptyRouterState, route, type RouterEvent, type RouterOptions, type RouterState } from '../../../server-proxy/desk/offer-router.js';

/**
 * Property test: the pure router driven the way offer-runner.ts drives it, against a model of
 * the service (FIFO queues, a dequeue that takes the head and rings the agent, a caller back at the head when
 * refused or after the ring time), with random arrivals, hangups, answers, declines, unanswered offers, agents
 * going away and back or losing their registration, lost webhooks and a replica killed. Two replicas share one
 * router lease and per-agent offer leases, as on Redis. Invariants: no dequeue ever reaches an agent already
 * ringing or talking, no replica believes one caller offered twice, and once the faults stop, within the bound
 * no caller waits while an agent is offerable. `PROPERTY_RUNS` sets how many sequences run (default 300).
 */

const RING_MS = 20_000;
const TICK_MS = 2000;
const LEASE_MS = 5000;
/** An agent's offer lease: held from the decision until the dequeue answers, then a read shows the agent taken. */
const AGENT_LEASE_MS = 25_000;
const OPTIONS: RouterOptions = { offerQueues: new Set(['q1', 'q2']), wrapUpMs: 3000, unansweredMs: RING_MS - 1000, offerTtlMs: RING_MS + 10_000, retryAgentMs: 3000, declineHoldMs: 30_000 };
const AGENTS = ['a0', 'a1', 'a2'];
const ALLOWED: Record<string, string[]> = { a0: ['q1', 'q2'], a1: ['q1'], a2: ['q2', 'q3'] };

type Action =
  | { kind: 'arrive'; queue: 'q1' | 'q2' | 'q3'; lost: boolean }
  | { kind: 'hangup'; pick: number; lost: boolean }
  | { kind: 'answer'; pick: number }
  | { kind: 'decline'; pick: number; lost: boolean }
  | { kind: 'availability'; agent: number; available: boolean }
  | { kind: 'registered'; agent: number; registered: boolean }
  | { kind: 'kill'; replica: number }
  | { kind: 'advance'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('arrive' as const), queue: fc.constantFrom('q1' as const, 'q2' as const, 'q3' as const), lost: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hangup' as const), pick: fc.nat(5), lost: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('answer' as const), pick: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('decline' as const), pick: fc.nat(3), lost: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('availability' as const), agent: fc.nat(2), available: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('registered' as const), agent: fc.nat(2), registered: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('kill' as const), replica: fc.nat(1) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 100, max: 12_000 }) }) },
);

interface Call {
  id: string;
  queueId: string;
  state: 'queued' | 'dequeuing' | 'established' | 'ended';
  agentId: string | null;
  rungAt: number;
  since: number;
}

interface Replica {
  id: string;
  state: RouterState;
}

/** The service, the store, the bus's leases and two replicas. */
class World {
  at = 1000;
  calls: Call[] = [];
  /** Each queue's waiting callers, head first. */
  lines = new Map<string, string[]>([['q1', []], ['q2', []], ['q3', []]]);
  store = new Map(AGENTS.map((id) => [id, { availability: 'available' as 'available' | 'away', idleSince: 0 }]));
  registered = new Map(AGENTS.map((id) => [id, true]));
  /** When each agent's last call ended. */
  endedAt = new Map<string, number>();
  replicas: Replica[] = [this.replica(0), this.replica(1)];
  leases = new Map<string, { holder: string; until: number }>();
  violations: string[] = [];
  private made = 0;

  replica(n: number): Replica {
    return { id: `r${n}-${this.at}`, state: emptyRouterState() };
  }

  lease(name: string, holder: string, ms: number): boolean {
    const current = this.leases.get(name);
    if (current && current.holder !== holder && current.until > this.at) return false;
    this.leases.set(name, { holder, until: this.at + ms });
    return true;
  }

  holder(): Replica | undefined {
    const current = this.leases.get('offer-router');
    return this.replicas.find((r) => current && current.holder === r.id && current.until > this.at);
  }

  /** The bus: an update reaches the router of the replica holding the lease, unless lost. */
  tell(event: RouterEvent, lost = false): void {
    const holder = this.holder();
    if (holder && !lost) this.feed(holder, event);
  }

  feed(replica: Replica, event: RouterEvent): void {
    const [state, decisions] = route(replica.state, event, OPTIONS);
    replica.state = state;
    const offered = [...state.offers.values()].flatMap((o) => (o.callId ? [o.callId] : []));
    if (new Set(offered).size !== offered.length) this.violations.push(`${replica.id} believes one caller offered twice`);
    for (const decision of decisions) {
      if (decision.type === 'away') this.store.set(decision.agentId, { availability: 'away', idleSince: this.at });
      if (decision.type === 'offer') this.offer(replica, decision.queueId, decision.agentId);
    }
  }

  /** The runner's offer: the agent's lease, then the dequeue. */
  offer(replica: Replica, queueId: string, agentId: string): void {
    const failed = (reason: 'queue_empty' | 'agent_unavailable' | 'error') => {
      if (reason !== 'error') this.leases.delete(`agent:${agentId}`);
      this.feed(replica, { type: 'offer-failed', agentId, reason, at: this.at });
    };
    if (!this.lease(`agent:${agentId}`, replica.id, AGENT_LEASE_MS)) return failed('error');
    const line = this.lines.get(queueId) ?? [];
    if (line.length === 0) return failed('queue_empty');
    if (!this.registered.get(agentId)) return failed('agent_unavailable');
    if (this.calls.some((c) => c.agentId === agentId && (c.state === 'dequeuing' || c.state === 'established'))) this.violations.push(`${agentId} offered while ringing or talking`);
    const head = line.shift();
    const call = this.calls.find((c) => c.id === head);
    if (!call) return;
    Object.assign(call, { state: 'dequeuing', agentId, rungAt: this.at });
    this.leases.delete(`agent:${agentId}`);
    this.feed(replica, { type: 'offered', agentId, queueId, callId: call.id, at: this.at });
  }

  requeue(call: Call, lost: boolean): void {
    Object.assign(call, { state: 'queued', agentId: null });
    this.lines.get(call.queueId)?.unshift(call.id);
    this.tell({ type: 'waiting', callId: call.id, queueId: call.queueId, since: call.since, requeued: true, at: this.at }, lost);
  }

  end(call: Call, lost: boolean): void {
    if (call.agentId && call.state !== 'queued') this.endedAt.set(call.agentId, this.at);
    const line = this.lines.get(call.queueId) ?? [];
    if (line.includes(call.id)) line.splice(line.indexOf(call.id), 1);
    call.state = 'ended';
    this.tell({ type: 'left', callId: call.id, at: this.at }, lost);
  }

  /** Time passes: rings run out, then every replica's periodic check (lease, store, read, tick). */
  advance(ms: number): void {
    const until = this.at + ms;
    while (this.at < until) {
      this.at = Math.min(until, this.at + TICK_MS);
      for (const call of this.calls) if (call.state === 'dequeuing' && this.at - call.rungAt >= RING_MS) this.requeue(call, false);
      for (const replica of this.replicas) this.check(replica);
    }
  }

  check(replica: Replica): void {
    if (!this.lease('offer-router', replica.id, LEASE_MS)) return;
    for (const [agentId, { availability, idleSince }] of this.store) this.feed(replica, { type: 'agent', agent: { agentId, availability, idleSince, queues: ALLOWED[agentId] ?? [] }, at: this.at });
    const active = this.calls.filter((c) => c.state !== 'ended');
    const queued = active.filter((c) => c.state === 'queued').map((c) => ({ callId: c.id, queueId: c.queueId, since: c.since }));
    const bridged = active.flatMap((c) => (c.agentId && c.state !== 'queued' ? [{ callId: c.id, queueId: c.queueId, agentId: c.agentId, state: c.state as 'dequeuing' | 'established' }] : []));
    this.feed(replica, { type: 'read', calls: { queued, bridged }, at: this.at });
  }

  act(a: Action): void {
    const active = this.calls.filter((c) => c.state !== 'ended');
    const ringing = this.calls.filter((c) => c.state === 'dequeuing');
    if (a.kind === 'arrive') {
      const call: Call = { id: `c${(this.made += 1)}`, queueId: a.queue, state: 'queued', agentId: null, rungAt: 0, since: this.at };
      this.calls.push(call);
      this.lines.get(a.queue)?.push(call.id);
      this.tell({ type: 'waiting', callId: call.id, queueId: call.queueId, since: this.at, requeued: false, at: this.at }, a.lost);
    } else if (a.kind === 'hangup' && active.length > 0) this.end(active[a.pick % active.length]!, a.lost);
    else if (a.kind === 'answer' && ringing.length > 0) ringing[a.pick % ringing.length]!.state = 'established';
    else if (a.kind === 'decline' && ringing.length > 0) this.requeue(ringing[a.pick % ringing.length]!, a.lost);
    else if (a.kind === 'availability') {
      const id = AGENTS[a.agent]!;
      const was = this.store.get(id)?.availability;
      if (a.available && was !== 'available') this.store.set(id, { availability: 'available', idleSince: this.at });
      if (!a.available) this.store.set(id, { availability: 'away', idleSince: this.at });
    } else if (a.kind === 'registered') this.registered.set(AGENTS[a.agent]!, a.registered);
    else if (a.kind === 'kill') this.replicas[a.replica] = this.replica(a.replica);
    else if (a.kind === 'advance') this.advance(a.ms);
  }

  /** Agents offerable by the truth: available, registered, neither ringing nor talking, past their wrap-up. */
  offerable(queueId: string): string[] {
    return AGENTS.filter(
      (id) =>
        this.store.get(id)?.availability === 'available' &&
        this.registered.get(id) &&
        (ALLOWED[id] ?? []).includes(queueId) &&
        !this.calls.some((c) => c.agentId === id && (c.state === 'dequeuing' || c.state === 'established')) &&
        this.at - (this.endedAt.get(id) ?? -Infinity) >= OPTIONS.wrapUpMs,
    );
  }
}

describe('the offer router, property', () => {
  it('never offers one agent twice nor one caller twice, and offers every waiting caller an agent is free for', () => {
    fc.assert(
      fc.property(fc.array(action, { maxLength: 60 }), (actions) => {
        const world = new World();
        for (const a of actions) world.act(a);
        // The faults stop: the bound is a dead replica's router lease lapsing, the retry of an agent refused, a
        // decline's hold, a check.
        world.advance(LEASE_MS + OPTIONS.retryAgentMs + OPTIONS.declineHoldMs + 2 * TICK_MS);
        expect(world.violations).toEqual([]);
        for (const queueId of OPTIONS.offerQueues) {
          const waiting = world.lines.get(queueId) ?? [];
          // An agent who declined the caller the router takes for the head (the oldest it knows waiting) is passed
          // over while the decline holds: a bounded wait, by the router's rule. A ring-out learned of early counts as
          // a decline, and callers back at the head after a ring may stand in another order than their arrival.
          const believed = [...(world.holder()?.state.waiting.get(queueId) ?? new Map<string, number>())].sort((a, b) => a[1] - b[1])[0]?.[0];
          const declined = world.holder()?.state.declined.get(believed ?? '');
          const free = world.offerable(queueId).filter((agentId) => !declined?.has(agentId));
          expect(waiting.length > 0 && free.length > 0, `${queueId}: ${waiting.join()} waiting while ${free.join()} offerable`).toBe(false);
        }
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
