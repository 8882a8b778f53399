import { randomBytes } from 'node:crypto';
import { HttpError } from '../contract/http-error.js';
import { CallRunner, type CallFacts } from './call-runner.js';
import { createMediaPeer, type MediaCounts } from './media.js';
import { TERMINAL_STATES, type Agent, type BrowserCall, type BrowserSession, type SessionTransport } from './model.js';
import { recipientFor, type RecipientTimings } from './recipients.js';
import { SipServer, type SipAccount } from './sip-server.js';

/**
 * The simulated service's browser-voice domain (spec 4.7): agents, sessions, calls, and the SIP registrar
 * they use. HTTP lives in rest.ts; this file knows nothing of requests.
 *
 * @remarks
 * Every resource records the API key that issued it (`owner`), and every lookup is scoped to the caller's
 * key: another key sees none of them (spec 4.7).
 */

export interface VoiceServiceOptions extends RecipientTimings {
  /** Public base of the simulator, e.g. `http://127.0.0.1:8090`, to tell the page where `/sip` is. */
  publicUrl(): string;
  host: string;
  sessionTtlSeconds: number;
  registrationMaxSeconds: number;
  agentAnswerTimeoutMs: number;
  /** How long a call whose SIP WebSocket closed lives on without audio from the browser; default 5000. */
  mediaTimeoutMs?: number | undefined;
  toneMs: number;
  now?: () => number;
}

export interface CreateCallInput {
  sessionId: string;
  from: string;
  to: string;
  maxDurationSeconds?: number | undefined;
  record?: boolean | undefined;
  customData?: Record<string, string> | undefined;
}

interface Owned<T> {
  owner: string;
  value: T;
}

interface SessionRecord extends Owned<BrowserSession> {
  username: string;
  password: string;
}

const token = (bytes: number): string => randomBytes(bytes).toString('base64url').replace(/[-_]/g, '').slice(0, bytes);
const newId = (prefix: string): string => `${prefix}_${token(20)}`;

export class VoiceService {
  readonly sip: SipServer;
  private readonly agents = new Map<string, Owned<Agent>>();
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly sessionsByUsername = new Map<string, string>();
  private readonly calls = new Map<string, Owned<BrowserCall>>();
  private readonly runners = new Map<string, CallRunner>();
  private readonly now: () => number;

  constructor(private readonly options: VoiceServiceOptions) {
    this.now = options.now ?? Date.now;
    this.sip = new SipServer({
      realm: options.host,
      host: options.host,
      now: this.now,
      lookupAccount: (username) => this.lookupAccount(username),
    });
  }

  createAgent(owner: string, input: { name: string; externalSubject: string }): Agent {
    const existing = this.findAgent(owner, input.externalSubject);
    if (existing) throw new HttpError(409, 'agent_exists', 'an agent exists for this externalSubject; list agents to find it');
    const agent: Agent = { id: newId('ag'), name: input.name, type: 'webrtc', externalSubject: input.externalSubject, createdAt: this.iso() };
    this.agents.set(agent.id, { owner, value: agent });
    return agent;
  }

  listAgents(owner: string, externalSubject?: string): Agent[] {
    return [...this.agents.values()]
      .filter((a) => a.owner === owner && (externalSubject === undefined || a.value.externalSubject === externalSubject))
      .map((a) => a.value);
  }

  /** Issues a session with temporary SIP credentials; supersedes an idle older one of the same subject. */
  createSession(owner: string, externalSubject: string): { session: BrowserSession; transport: SessionTransport } {
    const agent = this.findAgent(owner, externalSubject);
    if (!agent) throw new HttpError(400, 'not_found', 'no webrtc agent for this externalSubject; create one with POST /agents first');
    // The agent's call may belong to an expired session and still run (spec 3.2): the agent is busy all the same.
    if (this.activeCallOfAgent(agent.id)) {
      throw new HttpError(409, 'browser_agent_busy', 'this agent has a call in progress; end it before starting a new session');
    }
    const current = this.currentRecord(owner, externalSubject);
    if (current) this.closeSession(current, 'ended');
    const now = this.now();
    const username = `u${token(15)}`;
    const session: BrowserSession = {
      id: newId('bs'),
      agentId: agent.id,
      externalSubject,
      status: 'active',
      expiresAt: new Date(now + this.options.sessionTtlSeconds * 1000).toISOString(),
      backend: 'simulator',
      createdAt: new Date(now).toISOString(),
      endedAt: null,
    };
    const record: SessionRecord = { owner, value: session, username, password: token(32) };
    this.sessions.set(session.id, record);
    this.sessionsByUsername.set(username, session.id);
    return { session, transport: this.transportOf(record) };
  }

  /**
   * The subject's current session and its active call (no credentials: spec 4.7); with no active session, an
   * expired one whose accepted call still runs (spec 3.2), so that a page can recover that call.
   */
  currentSession(owner: string, externalSubject: string): { session: BrowserSession | null; call: BrowserCall | null } {
    const record =
      this.currentRecord(owner, externalSubject) ??
      [...this.sessions.values()].find((r) => r.owner === owner && r.value.externalSubject === externalSubject && this.activeCallOf(r.value.id));
    if (!record) return { session: null, call: null };
    return { session: record.value, call: this.activeCallOf(record.value.id) ?? null };
  }

  getSession(owner: string, id: string): BrowserSession {
    return this.sessionRecord(owner, id).value;
  }

  /**
   * Ends the session: its call is hung up, its registration dropped, its credentials revoked.
   *
   * @remarks
   * An expired session keeps its status, and its accepted call, which expiry let run on (spec 3.2), is hung up
   * all the same: DELETE requests cleanup (spec 4.7), and a call nobody can end would keep the agent busy.
   */
  endSession(owner: string, id: string): BrowserSession {
    const record = this.sessionRecord(owner, id);
    if (record.value.status === 'active') this.closeSession(record, 'ended');
    else this.hangupCallOf(record);
    return record.value;
  }

  async createCall(owner: string, input: CreateCallInput): Promise<BrowserCall> {
    const record = this.sessionRecord(owner, input.sessionId);
    this.refreshExpiry(record);
    if (record.value.status !== 'active') {
      throw new HttpError(409, 'browser_session_unavailable', `the session is ${record.value.status}; create a new one`);
    }
    if (!this.sip.registration(record.value.id)) {
      throw new HttpError(409, 'browser_session_unavailable', 'the browser agent is not registered; connect it first');
    }
    if (this.activeCallOf(record.value.id)) {
      throw new HttpError(409, 'browser_agent_busy', 'this agent already has a call in progress; wait for busy to be false');
    }
    const outcome = recipientFor(input.to, this.options);
    if (outcome.kind === 'blocked') throw new HttpError(403, outcome.code, outcome.message);
    const call: BrowserCall = {
      id: newId('bc'),
      sessionId: record.value.id,
      agentId: record.value.agentId,
      externalSubject: record.value.externalSubject,
      from: input.from,
      to: input.to,
      state: 'waiting_agent',
      busy: true,
      endReason: null,
      error: null,
      maxDurationSeconds: input.maxDurationSeconds ?? null,
      // spec 2.6: honoured only when the account supports recording; rest.ts passes false otherwise.
      record: input.record ?? false,
      customData: input.customData ?? {},
      createdAt: this.iso(),
      answeredAt: null,
      endedAt: null,
      revision: 1,
    };
    this.calls.set(call.id, { owner, value: call });
    const runner = new CallRunner(call, {
      sip: this.sip,
      createMedia: () => createMediaPeer({ toneMs: this.options.toneMs, now: this.now }),
      // A runner still finishing after reset() updates a call the service has forgotten: let it be.
      update: (callId, patch) => (this.calls.has(callId) ? this.updateCall(callId, patch) : { ...call, ...patch }),
      timings: this.options,
      now: this.now,
    });
    this.runners.set(call.id, runner);
    // The INVITE goes out before this request answers: the page must cope with it arriving first (DESIGN.md).
    await runner.start();
    return this.calls.get(call.id)?.value ?? call;
  }

  getCall(owner: string, id: string): BrowserCall {
    const call = this.calls.get(id);
    if (!call || call.owner !== owner) throw new HttpError(404, 'not_found', 'no such browser call');
    return call.value;
  }

  /** Requests the end of both legs; answers at once with the call as it is now (`ending` until both are down). */
  hangupCall(owner: string, id: string): BrowserCall {
    const call = this.getCall(owner, id);
    if (!TERMINAL_STATES.has(call.state)) this.runners.get(id)?.hangup('api_hangup');
    return this.getCall(owner, id);
  }

  /** Simulator control: a call as the service sees it, with SIP and media facts (any owner). */
  inspectCall(id: string): { call: BrowserCall; facts: CallFacts; media: MediaCounts | null } | undefined {
    const call = this.calls.get(id);
    const runner = this.runners.get(id);
    if (!call || !runner) return undefined;
    return { call: call.value, facts: runner.facts, media: runner.counts() };
  }

  /** Simulator control: every call of a session, oldest first (any owner). */
  callsOfSession(sessionId: string): BrowserCall[] {
    return [...this.calls.values()].map((owned) => owned.value).filter((call) => call.sessionId === sessionId);
  }

  /** Simulator control: the recipient hangs up. */
  remoteHangup(id: string): BrowserCall | undefined {
    const call = this.calls.get(id);
    if (!call) return undefined;
    if (!TERMINAL_STATES.has(call.value.state)) this.runners.get(id)?.hangup('recipient_hangup');
    return this.calls.get(id)?.value;
  }

  /**
   * Simulator control: the service withdraws the call's INVITE before the page answered it (CANCEL, the page's
   * 487, the call `failed` with `invite_withdrawn`). Resolves once that is committed; undefined for an unknown
   * call, `409 invite_not_ringing` when the page already answered, the INVITE is not out yet, or the call is over.
   */
  async withdrawInvite(id: string): Promise<BrowserCall | undefined> {
    const runner = this.runners.get(id);
    if (!this.calls.has(id) || !runner) return undefined;
    if (!(await runner.withdrawInvite())) {
      throw new HttpError(409, 'invite_not_ringing', 'the INVITE of this call is not ringing: not sent yet, answered by the browser, or the call is over');
    }
    return this.calls.get(id)?.value;
  }

  /** Simulator control: closes the SIP WebSocket of one session's registration, or of every registration. */
  closeSipSockets(sessionId?: string): void {
    const ids = sessionId === undefined ? [...this.sessions.keys()] : [sessionId];
    for (const id of ids) this.sip.registration(id)?.connection.socket.terminate();
  }

  /**
   * Simulator control: the session's `expiresAt` becomes now and the service's own expiry rule applies (status
   * `expired`, registration dropped, an accepted call runs on: spec 3.2). Undefined for an unknown session.
   */
  expireSession(id: string): BrowserSession | undefined {
    const record = this.sessions.get(id);
    if (!record) return undefined;
    if (record.value.status === 'active') record.value = { ...record.value, expiresAt: this.iso() };
    this.refreshExpiry(record);
    return record.value;
  }

  /** Forgets everything and stops every call; registered sockets stay open but unbound. */
  async reset(): Promise<void> {
    await Promise.all([...this.runners.values()].map((runner) => runner.dispose()));
    for (const record of this.sessions.values()) this.sip.removeRegistration(record.value.id);
    this.agents.clear();
    this.sessions.clear();
    this.sessionsByUsername.clear();
    this.calls.clear();
    this.runners.clear();
  }

  async close(): Promise<void> {
    await this.reset();
    this.sip.close();
  }

  private updateCall(id: string, patch: Partial<BrowserCall>): BrowserCall {
    const owned = this.calls.get(id);
    if (!owned) throw new Error(`unknown call ${id}`);
    const state = patch.state ?? owned.value.state;
    // spec 3.2: busy is true until both legs are down, which only a terminal state records.
    owned.value = { ...owned.value, ...patch, state, busy: !TERMINAL_STATES.has(state), revision: owned.value.revision + 1 };
    return owned.value;
  }

  private lookupAccount(username: string): SipAccount | undefined {
    const record = this.sessions.get(this.sessionsByUsername.get(username) ?? '');
    if (!record) return undefined;
    this.refreshExpiry(record);
    if (record.value.status !== 'active') return undefined;
    const remaining = Math.floor((Date.parse(record.value.expiresAt) - this.now()) / 1000);
    return {
      sessionId: record.value.id,
      password: record.password,
      maxExpiresSeconds: Math.max(1, Math.min(this.options.registrationMaxSeconds, remaining)),
    };
  }

  private transportOf(record: SessionRecord): SessionTransport {
    const base = new URL(this.options.publicUrl());
    return {
      websocketUrl: `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.host}/sip`,
      sipUri: `sip:${record.username}@${this.options.host}`,
      authorizationUsername: record.username,
      authorizationPassword: record.password,
      realm: this.options.host,
      registrationExpiresSeconds: this.options.registrationMaxSeconds,
      // The simulator runs on loopback: no STUN or TURN, host candidates only.
      iceServers: [],
      expiresAt: record.value.expiresAt,
    };
  }

  private findAgent(owner: string, externalSubject: string): Agent | undefined {
    return this.listAgents(owner, externalSubject)[0];
  }

  private currentRecord(owner: string, externalSubject: string): SessionRecord | undefined {
    for (const record of this.sessions.values()) {
      if (record.owner !== owner || record.value.externalSubject !== externalSubject) continue;
      this.refreshExpiry(record);
      if (record.value.status === 'active') return record;
    }
    return undefined;
  }

  private sessionRecord(owner: string, id: string): SessionRecord {
    const record = this.sessions.get(id);
    if (!record || record.owner !== owner) throw new HttpError(404, 'not_found', 'no such browser session');
    this.refreshExpiry(record);
    return record;
  }

  private activeCallOf(sessionId: string): BrowserCall | undefined {
    for (const call of this.calls.values()) if (call.value.sessionId === sessionId && call.value.busy) return call.value;
    return undefined;
  }

  private activeCallOfAgent(agentId: string): BrowserCall | undefined {
    for (const call of this.calls.values()) if (call.value.agentId === agentId && call.value.busy) return call.value;
    return undefined;
  }

  private refreshExpiry(record: SessionRecord): void {
    if (record.value.status === 'active' && Date.parse(record.value.expiresAt) <= this.now()) this.closeSession(record, 'expired');
  }

  /** Hangs up the session's active call, if any: both legs go down, `endReason: session_ended`. */
  private hangupCallOf(record: SessionRecord): void {
    const call = this.activeCallOf(record.value.id);
    if (call) this.runners.get(call.id)?.hangup('session_ended');
  }

  private closeSession(record: SessionRecord, status: 'ended' | 'expired'): void {
    // An expired session keeps an accepted call running under its own limit (spec 3.2); an ended one does not.
    if (status === 'ended') this.hangupCallOf(record);
    record.value = { ...record.value, status, endedAt: this.iso() };
    this.sessionsByUsername.delete(record.username);
    this.sip.removeRegistration(record.value.id);
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
