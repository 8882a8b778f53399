import { TERMINAL_CALL_STATES, type Availability, type BrowserCall, type BrowserSession, type CallInput, type SessionTransport } from '../core/types.js';
import { type CallbackOptions, type QueueCall, type Recording, type VoiceBackend } from '../core/backend-types.js';
import { isBridged, isLiveMonitorLeg } from '../../contract/queue-call.js';
import { FaultScripts, httpError, networkError, type Gate } from './fake-faults.js';

// The errors a test scripts, beside the fake that answers with them.
export { httpError, networkError, type Gate } from './fake-faults.js';

/**
 * A fake of the integrator's server that behaves like a tiny voice service: it keeps sessions and calls,
 * replays a call for a reused idempotency key, bumps `revision` on every change and derives `busy` from the
 * state as the simulator does. Tests script faults per operation and move calls through their states.
 *
 * @remarks
 * Scripts run in order, one per request of that operation:
 * - `fail(error)`: answers with the error; nothing is done.
 * - `drop(error)`: does the work, then loses the answer (a `drop-response` fault).
 * - `hold()`: does the work, then waits for the returned gate before answering, so a test can act while the
 *   request is in flight. With `{commit: false}` it waits first and does the work only once released (a
 *   gate failed then leaves nothing done, as a refusal does).
 */

export type Operation = Exclude<keyof VoiceBackend, 'queueEventsUrl'>;

/** The agent of the fake's one user, to whom its dequeues bridge callers. */
const AGENT = 'agent-1';

export interface Request {
  op: Operation;
  /** The call, session or queue id, for operations on one. */
  id?: string;
  input?: CallInput & { sessionId: string };
  idempotencyKey?: string;
  signal: AbortSignal;
}

export class FakeBackend implements VoiceBackend {
  /** Every request, in the order it arrived. */
  readonly requests: Request[] = [];
  /** Every call record an answer actually delivered to the helper (lost answers excluded). */
  readonly delivered: BrowserCall[] = [];
  /** The most reads (getCall, getCurrentSession) that were ever in flight at once. */
  maxReadsInFlight = 0;
  #readsInFlight = 0;
  readonly sessions = new Map<string, BrowserSession & { ended?: boolean }>();
  readonly calls = new Map<string, BrowserCall>();
  readonly #byKey = new Map<string, string>();
  readonly #faults = new FaultScripts<Operation>();
  /** The expiry every new session gets. */
  sessionExpiresAt = '2030-01-01T00:00:00.000Z';
  /**
   * Ending a session hangs up its calls (DELETE requests cleanup). By default they read `ended` at
   * once; set, they read `ending` (still busy) until the test ends them, as at a service that takes its time.
   */
  sessionEndLeavesCallsEnding = false;
  #nextSession = 1;
  #nextCall = 1;
  /** Inbound callers of every queue (spec 3.1 states), in arrival order; the user's agent is `agent-1`. */
  readonly queueCalls = new Map<string, QueueCall>();
  #nextCaller = 1;

  constructor(private readonly journal: string[] = []) {}

  fail(op: Operation, error: unknown): void {
    this.#faults.fail(op, error);
  }

  drop(op: Operation, error: unknown = networkError()): void {
    this.#faults.drop(op, error);
  }

  hold(op: Operation, options: { commit?: boolean } = {}): Gate {
    return this.#faults.hold(op, options.commit ?? true);
  }

  /** Forgets the scripts not yet used for `op`: its next requests are answered normally. */
  heal(op: Operation): void {
    this.#faults.heal(op);
  }

  /** The service moves a call on (as its call runner would); `busy` follows the state unless given. */
  setCall(id: string, patch: Partial<BrowserCall>): BrowserCall {
    const call = this.calls.get(id);
    if (!call) throw new Error(`no call ${id}`);
    const state = patch.state ?? call.state;
    const next: BrowserCall = { ...call, busy: !TERMINAL_CALL_STATES.has(state), ...patch, state, revision: Number(call.revision) + 1 };
    this.calls.set(id, next);
    return next;
  }

  requestsOf(op: Operation): Request[] {
    return this.requests.filter((request) => request.op === op);
  }

  createSession({ signal }: CallbackOptions): Promise<{ session: BrowserSession; transport: SessionTransport }> {
    return this.#answer({ op: 'createSession', signal }, () => {
      const id = `session-${this.#nextSession++}`;
      const session: BrowserSession = { id, status: 'active', expiresAt: this.sessionExpiresAt, externalSubject: 'user-1' };
      this.sessions.set(id, session);
      const transport: SessionTransport = { websocketUrl: 'ws://127.0.0.1:8090/sip', sipUri: `sip:${id}@127.0.0.1`, authorizationUsername: id, authorizationPassword: 'temporary', iceServers: [] };
      return { session: { ...session }, transport };
    });
  }

  /**
   * As the simulator answers it: the user's active session, else a session whose call still runs (an expired
   * one, or one that ended while its call is `ending`), with that session's active call.
   */
  getCurrentSession({ signal }: CallbackOptions): Promise<{ session: BrowserSession | null; call: BrowserCall | null }> {
    return this.#answer({ op: 'getCurrentSession', signal }, () => {
      const sessions = [...this.sessions.values()];
      const activeCall = (id: string) => [...this.calls.values()].find((c) => c.sessionId === id && c.busy !== false);
      const session = sessions.find((s) => !s.ended && s.status === 'active') ?? sessions.find((s) => activeCall(s.id)) ?? null;
      return { session: session && { ...session }, call: (session && activeCall(session.id)) ?? null };
    });
  }

  /** The session's `expiresAt` passes at the service: no new calls on it; an accepted call runs on. */
  expire(id: string): void {
    const session = this.sessions.get(id);
    if (session && session.status === 'active') session.status = 'expired';
  }

  /** The integrator's server ends the user's session on logout (proxy `revokeSessions`): its calls are hung up. */
  revoke(): void {
    for (const session of this.sessions.values()) if (!session.ended) this.#endSession(session);
  }

  createCall(input: CallInput & { sessionId: string }, { idempotencyKey, signal }: CallbackOptions & { idempotencyKey: string }): Promise<{ call: BrowserCall }> {
    return this.#answer({ op: 'createCall', input, idempotencyKey, signal }, () => {
      // spec 4.7: a reused key returns the original call.
      const existing = this.#byKey.get(idempotencyKey);
      if (existing) return { call: this.#read(existing) };
      const session = this.sessions.get(input.sessionId);
      // spec 3.2: an expired or ended session takes no new call.
      if (session && (session.ended || session.status !== 'active')) throw httpError(409, 'browser_session_unavailable');
      const id = `call-${this.#nextCall++}`;
      // `leg`: a field the helper does not know, which must survive every read.
      const call: BrowserCall = { id, state: 'waiting_agent', busy: true, revision: 1, sessionId: input.sessionId, from: input.from, to: input.to, endReason: null, leg: { provider: 'fake', region: 'test-1' } };
      this.calls.set(id, call);
      this.#byKey.set(idempotencyKey, id);
      return { call: { ...call } };
    });
  }

  getCall(id: string, { signal }: CallbackOptions): Promise<{ call: BrowserCall }> {
    return this.#answer({ op: 'getCall', id, signal }, () => ({ call: this.#read(id) }));
  }

  hangupCall(id: string, { signal }: CallbackOptions): Promise<{ call: BrowserCall }> {
    return this.#answer({ op: 'hangupCall', id, signal }, () => {
      const call = this.#read(id);
      // spec 3.2: hangup 202 is not proof the legs stopped; the record says `ending` and stays busy.
      return { call: TERMINAL_CALL_STATES.has(call.state) ? call : { ...this.setCall(id, { state: 'ending' }) } };
    });
  }

  /** A caller reaches `queueId` and waits (`queued`), as the simulator's `POST /__sim/inbound`. */
  arrive(queueId: string, from = '+12025550123'): QueueCall {
    const call: QueueCall = { id: `caller-${this.#nextCaller++}`, state: 'queued', queueId, from, to: '+12025550150', agentId: null };
    this.queueCalls.set(call.id, call);
    return { ...call };
  }

  /** The service moves an inbound call on (the agent answered: `established`; an end: `finished`; back: `queued`). */
  setQueueCall(id: string, patch: Partial<QueueCall>): QueueCall {
    const call = this.queueCalls.get(id);
    if (!call) throw new Error(`no caller ${id}`);
    const next = { ...call, ...patch };
    this.queueCalls.set(id, next);
    return { ...next };
  }

  /** Claims the head caller of the queue for the user's agent: `dequeuing`; `409 queue_empty` when nobody waits. */
  dequeue(queueId: string, { signal }: CallbackOptions): Promise<{ call: QueueCall }> {
    return this.#answer({ op: 'dequeue', id: queueId, signal }, () => {
      const head = [...this.queueCalls.values()].find((call) => call.queueId === queueId && call.state === 'queued');
      if (!head) throw httpError(409, 'queue_empty');
      return { call: this.setQueueCall(head.id, { state: 'dequeuing', agentId: AGENT }) };
    });
  }

  /** The user's claimed caller; a caller another agent holds is the proxy's 404. */
  getQueueCall(id: string, { signal }: CallbackOptions): Promise<{ call: QueueCall }> {
    return this.#answer({ op: 'getQueueCall', id, signal }, () => ({ call: this.#ownCaller(id) }));
  }

  /** Ends the user's claimed caller (`finished` at once). */
  hangupQueueCall(id: string, { signal }: CallbackOptions): Promise<{ call: QueueCall }> {
    return this.#answer({ op: 'hangupQueueCall', id, signal }, () => {
      this.#ownCaller(id);
      return { call: this.setQueueCall(id, { state: 'finished' }) };
    });
  }

  /** The user's claimed callers still bridged (`dequeuing`, `established`), and their monitor leg ringing or up. */
  listQueueCalls({ signal }: CallbackOptions): Promise<{ calls: QueueCall[] }> {
    const own = (call: QueueCall) => call.agentId === AGENT && (isBridged(call.state) || (call.kind === 'monitor' && isLiveMonitorLeg(call.state)));
    return this.#answer({ op: 'listQueueCalls', signal }, () => ({ calls: [...this.queueCalls.values()].filter(own).map((call) => ({ ...call })) }));
  }

  /** A supervisor's monitor leg of call `callId`, ringing the user's agent (`ringing`; a test moves it on). */
  monitorCall(callId: string, { signal }: CallbackOptions): Promise<{ call: QueueCall }> {
    return this.#answer({ op: 'monitorCall', id: callId, signal }, () => {
      const { id } = this.arrive('', '+12025550100');
      return { call: this.setQueueCall(id, { state: 'ringing', agentId: AGENT, kind: 'monitor', monitoredCallId: callId }) };
    });
  }

  /** Recordings the helper started, by id: `recording` until stopped, then `completed`. */
  readonly recordings = new Map<string, Recording>();

  startRecording(callId: string, { signal }: CallbackOptions): Promise<{ recording: Recording }> {
    return this.#answer({ op: 'startRecording', id: callId, signal }, () => {
      if ([...this.recordings.values()].some((r) => r.callId === callId && r.state === 'recording')) throw httpError(409, 'recording_already_running');
      const recording = { id: `rec-${this.recordings.size + 1}`, callId, state: 'recording' };
      this.recordings.set(recording.id, recording);
      return { recording: { ...recording } };
    });
  }

  stopRecording(callId: string, recordingId: string, { signal }: CallbackOptions): Promise<{ recording: Recording }> {
    return this.#answer({ op: 'stopRecording', id: recordingId, signal }, () => {
      const recording = this.recordings.get(recordingId);
      if (recording?.callId !== callId) throw httpError(404, 'not_found');
      if (recording.state !== 'recording') throw httpError(409, 'recording_not_running');
      return { recording: { ...Object.assign(recording, { state: 'completed' }) } };
    });
  }

  /** What the user's agent said of offers (`PUT /availability`); `away` until they said. */
  availability: Availability = 'away';

  setAvailability(availability: Availability, { signal }: CallbackOptions): Promise<{ availability: Availability }> {
    return this.#answer({ op: 'setAvailability', id: availability, signal }, () => ({ availability: (this.availability = availability) }));
  }

  getAvailability({ signal }: CallbackOptions): Promise<{ availability: Availability }> {
    return this.#answer({ op: 'getAvailability', signal }, () => ({ availability: this.availability }));
  }

  /** The proxy offers a waiting caller to the user's agent (a dequeue with `connectTo` it): `dequeuing`. */
  offer(queueId: string, from = '+12025550123'): QueueCall {
    const { id } = this.arrive(queueId, from);
    return this.setQueueCall(id, { state: 'dequeuing', agentId: AGENT });
  }

  #ownCaller(id: string): QueueCall {
    const call = this.queueCalls.get(id);
    if (!call || call.agentId !== AGENT) throw httpError(404, 'not_found');
    return { ...call };
  }

  endSession(id: string, { signal }: CallbackOptions): Promise<{ session: BrowserSession }> {
    return this.#answer({ op: 'endSession', id, signal }, () => {
      const session = this.sessions.get(id);
      if (!session) throw httpError(404, 'not_found');
      this.#endSession(session);
      return { session: { ...session } };
    });
  }

  /** As the simulator does: ending a session, whatever its status, hangs up its call, and its agent's claimed caller. */
  #endSession(session: BrowserSession & { ended?: boolean }): void {
    session.ended = true;
    if (session.status === 'active') session.status = 'ended';
    for (const call of this.calls.values()) {
      if (call.sessionId !== session.id || TERMINAL_CALL_STATES.has(call.state)) continue;
      this.setCall(call.id, this.sessionEndLeavesCallsEnding ? { state: 'ending' } : { state: 'ended', endReason: 'session_ended' });
    }
    // The agent's claimed caller goes down with the session too (the simulator hangs it up).
    for (const call of this.queueCalls.values()) if (call.agentId === AGENT && isBridged(call.state)) this.setQueueCall(call.id, { state: 'finished' });
  }

  #read(id: string): BrowserCall {
    const call = this.calls.get(id);
    if (!call) throw httpError(404, 'not_found');
    return { ...call };
  }

  async #answer<T>(request: Request, work: () => T): Promise<T> {
    const read = request.op === 'getCall' || request.op === 'getCurrentSession' || request.op === 'getQueueCall' || request.op === 'listQueueCalls';
    if (read) this.maxReadsInFlight = Math.max(this.maxReadsInFlight, ++this.#readsInFlight);
    try {
      const result = await this.#run(request, work);
      const call = (result as { call?: BrowserCall | null }).call;
      if (call) this.delivered.push(call);
      return result;
    } finally {
      if (read) this.#readsInFlight--;
    }
  }

  #run<T>(request: Request, work: () => T): Promise<T> {
    this.requests.push(request);
    this.journal.push(request.id ? `backend ${request.op} ${request.id}` : `backend ${request.op}`);
    return this.#faults.run(request.op, request.signal, work);
  }
}
