import { HttpError } from '../../contract/http-error.js';
import { AgentDirectory } from './agents.js';
import { BrowserCalls, type CreateCallInput } from '../calls/browser-calls.js';
import { BrowserSessions } from './browser-sessions.js';
import { NetworkProfiles } from '../turn/network.js';
import { selectMediaAddresses } from '../media/media-addresses.js';
import type { CallFacts } from '../calls/call-facts.js';
import type { EdgeState } from '../sip/edge/edge-state.js';
import type { CodecProfile } from '../media/audio-codec.js';
import type { MediaAddressMode } from '../media/media-address-mode.js';
import type { MediaCounts } from '../media/media.js';
import { QUEUE_ANSWER_TIMEOUT_MS, type Agent, type BrowserCall, type BrowserSession, type QueueCall, type SessionTransport } from './model.js';
import { QueueDesk } from './queues.js';
import { recipientFor, type RecipientTimings } from './recipients.js';
import type { RegistrationRecord } from '../http/control-client.js';
import { SipServer } from '../sip/sip-server.js';
import { Supervision } from './supervision.js';
import { createWebhookDelivery, type WebhookDelivery, type WebhookFaultSource } from './webhook-sender.js';

/**
 * The simulated service's browser-voice domain (spec 4.7): agents, sessions, calls, and the SIP registrar
 * they use. It reads no request and writes no response (`createRestApp` does); a refusal is the error spec 2.2 and 7
 * fix for it (the contract's `HttpError`: status, code, message), which the REST edge answers as is. It holds the
 * rules that span resources (a busy agent gets no new session, a call is admitted only on a registered,
 * idle session); each resource's own rules live in `AgentDirectory`, `BrowserSessions` and `BrowserCalls`.
 * Every resource records the API key that issued it (`owner`); every lookup is scoped to the caller's key (spec 4.7).
 */

/** How the service is reached, how long its sessions and registrations live, and its recipients' timings. */
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
  /** Where the calls' media gathers and whom it may pair with (`selectMediaAddresses`). */
  mediaAddresses: MediaAddressMode;
  /** The codecs the calls' media offers (`CodecProfile`); default `opus`. */
  codecs?: CodecProfile | undefined;
  /** How long a dequeued caller rings the agent before going back to the head of its queue; default 20 s (docs/simulator.md). */
  queueAnswerTimeoutMs?: number | undefined;
  /** The armed faults the queue webhooks meet (`drop-webhook`, `delay-webhook`): the FaultPlan of the control API. */
  webhookFaults?: WebhookFaultSource | undefined;
  /** The SIP edge the registrar and the INVITEs speak as (`EdgeState`); default the `kamailio` profile, never changed. */
  edge?: EdgeState | undefined;
  /** Where coturn is, for the network profiles that use TURN; default Debian's. */
  turnserverPath?: string | undefined;
  now?: () => number;
}

/** The service's domain in one object, as the REST edge (`createRestApp`) and the control API (`createControlApp`) reach it. */
export class VoiceService {
  readonly sip: SipServer;
  /** Queues and their inbound callers (spec 4.8), with their webhooks (spec 6.1). */
  readonly queues: QueueDesk;
  /** Monitor legs and recordings of calls in progress (spec 4.8). */
  readonly supervision: Supervision;
  private readonly agents: AgentDirectory;
  private readonly sessions: BrowserSessions;
  /** The browser calls (spec 4.7); the control API holds one through it. */
  readonly calls: BrowserCalls;
  private readonly webhooks: WebhookDelivery;
  /** The network profiles the sessions' ICE configuration is issued for, and their TURN server. */
  readonly network: NetworkProfiles;

  constructor(private readonly options: VoiceServiceOptions) {
    const now = options.now ?? Date.now;
    this.sip = new SipServer({ realm: options.host, host: options.host, edge: options.edge, now, lookupAccount: (username) => this.sessions.sipAccount(username) });
    this.agents = new AgentDirectory(now);
    this.webhooks = createWebhookDelivery(options.webhookFaults);
    const media = { toneMs: options.toneMs, mediaAddresses: options.mediaAddresses, codecs: options.codecs, now };
    this.queues = new QueueDesk({
      deliver: (url, secret, event) => this.webhooks.send(url, secret, event),
      sip: this.sip,
      ...media,
      agentAnswerTimeoutMs: options.queueAnswerTimeoutMs ?? QUEUE_ANSWER_TIMEOUT_MS,
      mediaTimeoutMs: options.mediaTimeoutMs,
    });
    // spec 2.6: a call placed with `record: true` is recorded from the recipient's answer.
    const onRecordedCallConnected = (owner: string, callId: string): void => this.supervision.recordOnAnswer(owner, callId);
    this.calls = new BrowserCalls({ sip: this.sip, ...media, timings: options, onRecordedCallConnected });
    this.supervision = new Supervision({
      calls: this.calls,
      queues: this.queues,
      sip: this.sip,
      freeAgent: (owner, agentId, field) => this.freeAgent(owner, agentId, field),
      agentAnswerTimeoutMs: options.queueAnswerTimeoutMs ?? QUEUE_ANSWER_TIMEOUT_MS,
      ...media,
    });
    this.network = new NetworkProfiles({ peers: selectMediaAddresses(options.mediaAddresses).offered, turnserverPath: options.turnserverPath });
    this.sessions = new BrowserSessions({
      sip: this.sip,
      ice: (externalSubject, user, expiresAtMs) => this.network.iceFor(externalSubject, user, expiresAtMs),
      // A session's end hangs up whichever call its agent is on: one it placed, or a caller it dequeued.
      calls: {
        activeCallOf: (sessionId) => this.calls.activeCallOf(sessionId),
        hangupCallOf: (sessionId) => {
          this.calls.hangupCallOf(sessionId);
          this.queues.hangupBridgedOf(sessionId);
          this.supervision.hangupMonitorsOf(sessionId);
        },
      },
      publicUrl: () => options.publicUrl(),
      host: options.host,
      sessionTtlSeconds: options.sessionTtlSeconds,
      registrationMaxSeconds: options.registrationMaxSeconds,
      now,
    });
  }

  /** Creates the subject's agent; `409 agent_exists` when the key already has one for it. */
  createAgent(owner: string, input: { name: string; externalSubject: string }): Agent {
    return this.agents.create(owner, input);
  }

  /** The key's agents, oldest first; with a subject, only that subject's. */
  listAgents(owner: string, externalSubject?: string): Agent[] {
    return this.agents.list(owner, externalSubject);
  }

  /** Issues a session with temporary SIP credentials; supersedes an idle older one of the same subject. */
  createSession(owner: string, externalSubject: string): { session: BrowserSession; transport: SessionTransport } {
    const agent = this.agents.find(owner, externalSubject);
    if (!agent) throw new HttpError(400, 'not_found', 'no webrtc agent for this externalSubject; create one with POST /agents first');
    // The agent's call may belong to an expired session and still run (spec 3.2): the agent is busy all the same.
    if (this.agentBusy(agent.id)) {
      throw new HttpError(409, 'browser_agent_busy', 'this agent has a call in progress; end it before starting a new session');
    }
    return this.sessions.create(owner, agent);
  }

  /**
   * The subject's current session and its active call (no credentials: spec 4.7); with no active session, an
   * expired one whose accepted call still runs (spec 3.2), so that a page can recover that call.
   */
  currentSession(owner: string, externalSubject: string): { session: BrowserSession | null; call: BrowserCall | null } {
    return this.sessions.current(owner, externalSubject);
  }

  /** The key's session, expiry applied; `404 not_found` for an unknown id and for another key's alike. */
  getSession(owner: string, id: string): BrowserSession {
    return this.sessions.get(owner, id);
  }

  /**
   * Ends the session: its call is hung up, its registration dropped, its credentials revoked. An expired session
   * keeps its status, and its accepted call, which expiry let run on (spec 3.2), is hung up all the same: DELETE
   * requests cleanup (spec 4.7), and a call nobody can end would keep the agent busy.
   */
  endSession(owner: string, id: string): BrowserSession {
    return this.sessions.end(owner, id);
  }

  /**
   * Admits a call on the key's session and sends its INVITE. Refused, in this order: an unknown session (404),
   * one not active or not registered (409 `browser_session_unavailable`), one with a call in progress (409
   * `browser_agent_busy`), a recipient the compliance rules block (403).
   */
  async createCall(owner: string, input: CreateCallInput): Promise<BrowserCall> {
    const session = this.sessions.get(owner, input.sessionId);
    if (session.status !== 'active') {
      throw new HttpError(409, 'browser_session_unavailable', `the session is ${session.status}; create a new one`);
    }
    if (!this.sip.registration(session.id)) {
      throw new HttpError(409, 'browser_session_unavailable', 'the browser agent is not registered; connect it first');
    }
    if (this.agentBusy(session.agentId)) {
      throw new HttpError(409, 'browser_agent_busy', 'this agent already has a call in progress; wait for busy to be false');
    }
    const outcome = recipientFor(input.to, this.options);
    if (outcome.kind === 'blocked') throw new HttpError(403, outcome.code, outcome.message);
    return this.calls.create(owner, session, input);
  }

  /**
   * Claims the head caller of the key's queue for `connectTo`, a webrtc agent of the key, and rings its page
   * (docs/simulator.md). Refused, in this order: an unknown queue (404), an unknown agent (`400
   * not_found`), an agent without an active, registered session (409 `browser_session_unavailable`), one on a
   * call (409 `browser_agent_busy`), nobody waiting (409 `queue_empty`).
   */
  async dequeue(owner: string, queueId: string, connectTo: string): Promise<QueueCall> {
    this.queues.ownQueue(owner, queueId);
    return this.queues.dequeue(owner, queueId, this.freeAgent(owner, connectTo, 'connectTo'));
  }

  /** The key's agent `agentId` with an active, registered session and no call (its session), or the refusal. */
  private freeAgent(owner: string, agentId: string, field: string): { agentId: string; sessionId: string } {
    const agent = this.agents.list(owner).find((candidate) => candidate.id === agentId);
    if (!agent) throw new HttpError(400, 'not_found', `${field}: no webrtc agent of this key has that id`);
    const { session } = this.sessions.current(owner, agent.externalSubject);
    if (session?.status !== 'active' || !this.sip.registration(session.id)) {
      throw new HttpError(409, 'browser_session_unavailable', "the agent's browser is not registered; connect it first");
    }
    if (this.agentBusy(agent.id)) throw new HttpError(409, 'browser_agent_busy', 'this agent has a call in progress; end it first');
    return { agentId: agent.id, sessionId: session.id };
  }

  /** Simulator control: a queued caller as the service sees it, with its bridge's SIP and media facts. */
  inspectQueueCall(id: string): ReturnType<QueueDesk['inspect']> {
    return this.queues.inspect(id);
  }

  /** The agent has a browser call in progress, a caller a dequeue bridged to it, or a monitor leg ringing or up. */
  private agentBusy(agentId: string): boolean {
    return Boolean(this.calls.activeCallOfAgent(agentId) ?? this.queues.bridgedCallOf(agentId)) || this.supervision.monitoringAgent(agentId);
  }

  /** The key's call; `404 not_found` for an unknown id and for another key's call alike (spec 4.7). */
  getCall(owner: string, id: string): BrowserCall {
    return this.calls.get(owner, id);
  }

  /** Requests the end of both legs; answers at once with the call as it is now (`ending` until both are down). */
  hangupCall(owner: string, id: string): BrowserCall {
    return this.calls.hangup(owner, id);
  }

  /** Simulator control: a call as the service sees it, with SIP and media facts (any owner). */
  inspectCall(id: string): { call: BrowserCall; facts: CallFacts; media: MediaCounts | null } | undefined {
    return this.calls.inspect(id);
  }

  /** Simulator control: every call of a session, oldest first (any owner). */
  callsOfSession(sessionId: string): BrowserCall[] {
    return this.calls.ofSession(sessionId);
  }

  /** Simulator control: the recipient hangs up. */
  remoteHangup(id: string): BrowserCall | undefined {
    return this.calls.remoteHangup(id);
  }

  /** Simulator control: the far end asks the page to transfer the call (a REFER); resolves with the page's status code. */
  refer(id: string, target: string): Promise<number | undefined> {
    return this.calls.refer(id, target);
  }

  /**
   * Simulator control: the service withdraws the call's INVITE before the page answered it (CANCEL, the page's
   * 487, the call `failed` with `invite_withdrawn`). Resolves once that is committed; undefined for an unknown
   * call, `409 invite_not_ringing` when the page already answered, the INVITE is not out yet, or the call is over.
   */
  async withdrawInvite(id: string): Promise<BrowserCall | undefined> {
    return this.calls.withdrawInvite(id);
  }

  /**
   * Simulator control: stalls the SIP WebSocket of one session's registration, or of every registration: it
   * stays open and answers nothing (see `SipConnection.stall`). A socket the page opens afterwards is not stalled.
   */
  stallSipSockets(sessionId?: string): void {
    for (const registration of this.registrationsOf(sessionId)) registration?.connection.stall(registration);
  }

  /** Simulator control: closes the SIP WebSocket of one session's registration, or of every registration. */
  closeSipSockets(sessionId?: string): void {
    for (const registration of this.registrationsOf(sessionId)) registration?.connection.terminate(registration);
  }

  /** The registration of one session, or of every session (absent where none is up). */
  private registrationsOf(sessionId?: string) {
    return (sessionId === undefined ? this.sessions.ids() : [sessionId]).map((id) => this.sip.registration(id));
  }

  /**
   * Simulator control: the session's `expiresAt` becomes now and the service's own expiry rule applies (status
   * `expired`, registration dropped, an accepted call runs on: spec 3.2). Undefined for an unknown session.
   */
  expireSession(id: string): BrowserSession | undefined {
    return this.sessions.expire(id);
  }

  /** Simulator control: what the registrar did for a session (registered now, how long it was not); undefined for an unknown one. */
  registrationOf(id: string): RegistrationRecord | undefined {
    return this.sessions.ids().includes(id) ? this.sip.registrationRecord(id) : undefined;
  }

  /** Forgets everything and stops every call; registered sockets stay open but unbound. */
  async reset(): Promise<void> {
    await this.supervision.clear();
    await this.calls.reset();
    this.sessions.reset();
    this.network.reset();
    this.sip.forgetRecords();
    this.agents.clear();
    this.webhooks.cancelLate();
    await this.queues.clear();
  }

  /** Resets, then closes every SIP socket. */
  async close(): Promise<void> {
    await this.reset();
    this.sip.close();
    await this.network.close();
  }
}
