// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RECONCILE_READS } from '../../../../lib/runtime/reconcile.js';
import { REOPEN_MS, watchQueueStream } from '../../../../lib/platform/web/queue-watch.js';
import { httpError, networkError } from '../../../../lib/testing/fake-backend.js';
import { FakeClock } from '../../../../lib/testing/fake-clock.js';
import type { QueueCaller } from '../../../../lib/core/helper-types.js';
import { connected, inCall, setup } from '../../../support/helper-world.js';
import { rejection } from '../../../support/rejection.js';

/**
 * Support desks in the helper (DESIGN.md): answerNext() claims the head caller by a dequeue, answers only the
 * INVITE that names it (before or after the dequeue's answer), shows it in the browser call's states with one
 * poller until a terminal read, and never dequeues again by itself after a lost answer: reads reconcile it.
 * watchQueues() keeps the waiting callers from the proxy's event stream.
 */

describe('answerNext()', () => {
  it('claims the head caller, answers its INVITE, and shows it through established to its end', async () => {
    const world = await connected();
    const { voice, backend, sip, clock } = world;
    const first = backend.arrive('q-support', '+12025550121');
    backend.arrive('q-support', '+12025550122');

    const claimed = await voice.answerNext('q-support');
    expect(claimed).toMatchObject({ id: first.id, state: 'waiting_agent', serviceState: 'dequeuing', queueId: 'q-support', from: '+12025550121', busy: true });
    expect(voice.status()).toMatchObject({ busy: true, attempt: { queueId: 'q-support', phase: 'admitted' }, call: { id: first.id } });

    const invite = sip.invite(first.id);
    expect(invite.outcome).toBe('accepted');
    backend.setQueueCall(first.id, { state: 'established' });
    await clock.advance(1000);
    expect(voice.status().call).toMatchObject({ state: 'connected', serviceState: 'established' });
    expect(backend.requestsOf('getQueueCall').length).toBeGreaterThan(0);
    expect(backend.requestsOf('getCall')).toHaveLength(0);

    await voice.hangup();
    expect(backend.requestsOf('hangupQueueCall').map((request) => request.id)).toEqual([first.id]);
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, call: { state: 'ended', serviceState: 'finished' } });
    expect(backend.maxReadsInFlight).toBe(1);
  });

  it("holds an INVITE that comes before the dequeue's answer and answers it once it names the claimed call", async () => {
    const { voice, backend, sip } = await connected();
    const caller = backend.arrive('q-support');
    const gate = backend.hold('dequeue');
    const claiming = voice.answerNext('q-support');
    await Promise.resolve();
    await Promise.resolve();
    const early = sip.invite(caller.id);
    expect(early.outcome).toBe('pending');
    gate.release();
    await claiming;
    expect(early.outcome).toBe('accepted');
  });

  it("refuses an INVITE naming another call, and one with no call id, while a caller is claimed", async () => {
    const { voice, backend, sip } = await connected();
    backend.arrive('q-support');
    await voice.answerNext('q-support');
    expect(sip.invite('caller-99').outcome).toBe('rejected');
    expect(sip.invite(undefined).outcome).toBe('rejected');
  });

  it('rejects queue_empty with nothing claimed, busy false, and the code shown', async () => {
    const { voice } = await connected();
    expect((await rejection(voice.answerNext('q-support'))).code).toBe('queue_empty');
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, error: { code: 'queue_empty' } });
  });

  it('refuses while busy, before connect(), and without a queue id, sending no dequeue', async () => {
    const busy = await inCall();
    expect((await rejection(busy.voice.answerNext('q-support'))).code).toBe('browser_agent_busy');
    expect(busy.backend.requestsOf('dequeue')).toHaveLength(0);

    const idle = await connected();
    await idle.voice.disconnect();
    expect((await rejection(idle.voice.answerNext('q-support'))).code).toBe('browser_session_unavailable');
    expect((await rejection(idle.voice.answerNext(''))).code).toBe('invalid_argument');
    expect(idle.backend.requestsOf('dequeue')).toHaveLength(0);
  });

  it('joins a double click: one dequeue', async () => {
    const { voice, backend } = await connected();
    backend.arrive('q-support');
    const [a, b] = await Promise.all([voice.answerNext('q-support'), voice.answerNext('q-support')]);
    expect(a.id).toBe(b.id);
    expect(backend.requestsOf('dequeue')).toHaveLength(1);
  });

  it('a lost answer rejects dequeue_outcome_unknown, is never dequeued again, and reads find the claimed caller', async () => {
    const { voice, backend, sip, clock } = await connected();
    const caller = backend.arrive('q-support');
    backend.drop('dequeue');
    expect((await rejection(voice.answerNext('q-support'))).code).toBe('dequeue_outcome_unknown');
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'outcome_unknown', queueId: 'q-support' } });
    // The INVITE of the claimed call comes meanwhile: held until a read names the call.
    const invite = sip.invite(caller.id);
    await clock.advance(1000);
    expect(backend.requestsOf('listQueueCalls').length).toBeGreaterThan(0);
    expect(voice.status()).toMatchObject({ busy: true, attempt: { phase: 'admitted' }, call: { id: caller.id } });
    expect(invite.outcome).toBe('accepted');
    expect(backend.requestsOf('dequeue')).toHaveLength(1);
  });

  it('a lost request that claimed nobody: the reads find none, the attempt ends, busy false', async () => {
    const { voice, backend, clock } = await connected();
    backend.arrive('q-support');
    backend.fail('dequeue', networkError());
    await rejection(voice.answerNext('q-support'));
    for (let i = 0; i < RECONCILE_READS; i++) await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, attempt: null, error: { code: 'dequeue_outcome_unknown' } });
    expect(backend.requestsOf('dequeue')).toHaveLength(1);
    expect(backend.requestsOf('listQueueCalls')).toHaveLength(RECONCILE_READS);
  });

  it('the agent did not answer in time: a read shows the caller back in the queue, over for this agent', async () => {
    const { voice, backend, clock } = await connected();
    const caller = backend.arrive('q-support');
    await voice.answerNext('q-support');
    backend.setQueueCall(caller.id, { state: 'queued' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, call: { state: 'ended', serviceState: 'queued' } });
  });

  it('another agent claimed the caller since (the read is a 404): over for this agent, never read again', async () => {
    const { voice, backend, clock } = await connected();
    const caller = backend.arrive('q-support');
    await voice.answerNext('q-support');
    backend.setQueueCall(caller.id, { agentId: 'agent-2' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, call: { id: caller.id, state: 'ended' } });
    const reads = backend.requestsOf('getQueueCall').length;
    await clock.advance(3000);
    expect(backend.requestsOf('getQueueCall')).toHaveLength(reads);
  });

  it('passes on a failed read as a read error and keeps reading, then takes the next caller once free', async () => {
    const { voice, backend, clock } = await connected();
    const caller = backend.arrive('q-support');
    backend.arrive('q-support', '+12025550122');
    await voice.answerNext('q-support');
    backend.fail('getQueueCall', httpError(503, 'upstream_unavailable'));
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: true, error: { code: 'upstream_unavailable' } });
    backend.setQueueCall(caller.id, { state: 'finished' });
    await clock.advance(1000);
    expect(voice.status()).toMatchObject({ busy: false, error: null });
    expect((await voice.answerNext('q-support')).from).toBe('+12025550122');
  });
});

describe('recover() of a caller claimed from a queue (a reload, or a new leader among shared tabs)', () => {
  it('finds the claimed caller, shows it for cleanup on the queue routes, and hangup() ends it', async () => {
    const before = await connected();
    const caller = before.backend.arrive('q-support');
    await before.voice.answerNext('q-support');
    before.sip.invite(caller.id);
    before.backend.setQueueCall(caller.id, { state: 'established' });

    const after = setup({ backend: before.backend });
    const status = await after.voice.recover();
    expect(status).toMatchObject({ connection: 'recovery_required', busy: true, call: { id: caller.id, state: 'connected', queueId: 'q-support' } });
    await after.voice.hangup();
    expect(after.backend.requestsOf('hangupQueueCall').map((request) => request.id)).toEqual([caller.id]);
    expect(after.voice.status()).toMatchObject({ busy: false, call: { state: 'ended' } });
    await after.voice.disconnect();
    expect(after.voice.status()).toMatchObject({ connection: 'disconnected', busy: false, error: null });
  });

  it('disconnect() after a lost hangup: the session\'s end hangs the caller up, and a read of it proves that', async () => {
    const before = await connected();
    const caller = before.backend.arrive('q-support');
    await before.voice.answerNext('q-support');
    before.backend.setQueueCall(caller.id, { state: 'established' });

    const after = setup({ backend: before.backend });
    await after.voice.recover();
    // The hangup gets no answer: the session's end hangs the caller up, and a read of it after that end proves it.
    after.backend.fail('hangupQueueCall', networkError());
    const disconnecting = after.voice.disconnect();
    await after.clock.advance(0);
    for (let i = 0; i < 20 && after.voice.status().connection === 'disconnecting'; i++) await after.clock.advance(1000);
    await disconnecting;
    expect(after.backend.requestsOf('hangupQueueCall').map((request) => request.id)).toEqual([caller.id]);
    expect(after.backend.requestsOf('getQueueCall').length).toBeGreaterThan(0);
    expect(after.voice.status()).toMatchObject({ connection: 'disconnected', busy: false, call: { state: 'ended', serviceState: 'finished' } });
  });

  it('a session without a claimed caller recovers as before, with one read of the callers', async () => {
    const before = await connected();
    const after = setup({ backend: before.backend });
    expect(await after.voice.recover()).toMatchObject({ connection: 'recovery_required', busy: false, call: null });
    expect(after.backend.requestsOf('listQueueCalls')).toHaveLength(1);
  });
});

/** An EventSource that a test drives: the events the proxy's stream would send. */
class FakeEventSource {
  static readonly CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readonly listeners = new Map<string, Array<(event: MessageEvent<string>) => void>>();
  closed = false;
  readyState = 1;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener(name: string, listener: (event: MessageEvent<string>) => void): void {
    this.listeners.set(name, [...(this.listeners.get(name) ?? []), listener]);
  }
  close(): void {
    this.closed = true;
  }
  /** An error answer (503, say): EventSource closes for good. */
  refuse(): void {
    this.readyState = FakeEventSource.CLOSED;
    this.onerror?.();
  }
  send(name: string, data: unknown): void {
    for (const listener of this.listeners.get(name) ?? []) listener({ data: typeof data === 'string' ? data : JSON.stringify(data) } as MessageEvent<string>);
  }
}

describe('watchQueues()', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    FakeEventSource.opened = [];
  });

  const caller = (callId: string, since: string, queueId = 'q-support'): QueueCaller => ({ callId, queueId, from: '+12025550121', to: '+12025550150', since });

  it('lists the snapshot, oldest first, then adds and removes callers as the events say', () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    const seen: Array<readonly QueueCaller[]> = [];
    const stop = watchQueueStream('/voice/queue-events', (callers) => seen.push(callers), new FakeClock());
    const source = FakeEventSource.opened[0] as FakeEventSource;
    expect(source.url).toBe('/voice/queue-events');

    source.send('snapshot', { callers: [caller('c2', '2026-11-26T10:00:02Z'), caller('c1', '2026-11-26T10:00:01Z')] });
    expect(seen.at(-1)?.map((c) => c.callId)).toEqual(['c1', 'c2']);
    source.send('call.received', caller('c3', '2026-11-26T10:00:03Z', 'q-sales'));
    source.send('call.claimed', { callId: 'c1', queueId: 'q-support' });
    source.send('call.ended', { callId: 'c2', queueId: 'q-support', state: 'finished' });
    expect(seen.at(-1)?.map((c) => c.callId)).toEqual(['c3']);
    // Back at the head after an agent did not answer: it waited since it first arrived.
    source.send('call.requeued', caller('c1', '2026-11-26T10:00:01Z'));
    expect(seen.at(-1)?.map((c) => c.callId)).toEqual(['c1', 'c3']);
    // Told again with the service's creation time (its webhook came late): replaced, not added, and moved.
    source.send('call.received', caller('c3', '2026-11-26T10:00:00Z', 'q-sales'));
    expect(seen.at(-1)?.map((c) => `${c.callId} ${c.since}`)).toEqual(['c3 2026-11-26T10:00:00Z', 'c1 2026-11-26T10:00:01Z']);
    // A reconnection's snapshot replaces the list: what was missed meanwhile is made up.
    source.send('snapshot', { callers: [caller('c4', '2026-11-26T10:00:04Z')] });
    expect(seen.at(-1)?.map((c) => c.callId)).toEqual(['c4']);

    stop();
    expect(source.closed).toBe(true);
  });

  it('opens the stream again after an error answer closed it, until stopped', async () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    const clock = new FakeClock();
    const seen: Array<readonly QueueCaller[]> = [];
    const stop = watchQueueStream('/voice/queue-events', (callers) => seen.push(callers), clock);
    (FakeEventSource.opened[0] as FakeEventSource).refuse();
    await clock.advance(REOPEN_MS);
    expect(FakeEventSource.opened).toHaveLength(2);
    (FakeEventSource.opened[1] as FakeEventSource).send('snapshot', { callers: [caller('c1', '2026-11-26T10:00:01Z')] });
    expect(seen.at(-1)?.map((c) => c.callId)).toEqual(['c1']);
    (FakeEventSource.opened[1] as FakeEventSource).refuse();
    stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(REOPEN_MS * 2);
    expect(FakeEventSource.opened).toHaveLength(2);
  });

  it('ignores what it cannot read: bad JSON, a caller without its fields', () => {
    vi.stubGlobal('EventSource', FakeEventSource);
    const seen: Array<readonly QueueCaller[]> = [];
    watchQueueStream('/voice/queue-events', (callers) => seen.push(callers), new FakeClock());
    const source = FakeEventSource.opened[0] as FakeEventSource;
    source.send('call.received', '{not json');
    source.send('call.received', { callId: 'c1' });
    source.send('snapshot', { callers: 'none' });
    expect(seen.every((callers) => callers.length === 0)).toBe(true);
  });

  it('is refused with invalid_argument by a helper whose backend has no event stream', async () => {
    const { voice } = await connected();
    expect(() => voice.watchQueues(() => undefined)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
