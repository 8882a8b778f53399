import { HttpError } from '../../contract/http-error.js';
import type { BrowserCalls } from '../calls/browser-calls.js';
import type { CallFacts } from '../calls/call-facts.js';
import type { CodecProfile } from '../media/audio-codec.js';
import type { MediaAddressMode } from '../media/media-address-mode.js';
import { createMediaPeer, type MediaCounts } from '../media/media.js';
import type { CallMixer } from '../media/mixer.js';
import { TERMINAL_GENERIC_STATES, TERMINAL_STATES } from './model.js';
import { MonitorLeg, type MonitorCall } from '../calls/monitor-leg.js';
import type { QueueDesk } from './queues.js';
import { RecordingDesk, type Recording } from './recordings.js';
import { newId, type Owned } from './resources.js';
import type { SipServer } from '../sip/sip-server.js';

/**
 * What a supervisor and a recorder do with a call in progress (spec 4.8; docs/simulator.md "Supervisors and
 * recordings"): monitor it with a `monitor` leg to an agent's page (`MonitorLeg`), and record it
 * (`RecordingDesk`). Both listen to the call's mix of its two parties, so both need the call in progress: a browser
 * call `connected`, a queued caller `established` with an agent. A call the key cannot see is `404 not_found`, one
 * that is over `409 call_ended`, one not answered yet `409 call_not_answered`.
 */

/** What supervision needs of the rest of the service. */
export interface SupervisionDeps {
  calls: BrowserCalls;
  queues: QueueDesk;
  sip: SipServer;
  /**
   * The key's webrtc agent `agentId`, registered on an active session and on no call: the session its page
   * registered under; otherwise throws the refusal (`400 not_found`, `409 browser_session_unavailable`,
   * `409 browser_agent_busy`).
   */
  freeAgent(owner: string, agentId: string, field: string): { agentId: string; sessionId: string };
  /** How long the supervisor's page may ring before the leg ends `no_answer`. */
  agentAnswerTimeoutMs: number;
  /** Where each monitor leg's media gathers and whom it may pair with (`selectMediaAddresses`). */
  mediaAddresses: MediaAddressMode;
  /** The codecs the media offers (`CodecProfile`); default `opus`. */
  codecs?: CodecProfile | undefined;
  now: () => number;
}

/** A monitor leg, the key that asked for it, and the session its INVITE rang. */
interface StoredMonitor extends Owned<MonitorLeg> {
  sessionId: string;
}

export class Supervision {
  readonly recordings: RecordingDesk;
  private readonly monitors = new Map<string, StoredMonitor>();

  constructor(private readonly deps: SupervisionDeps) {
    this.recordings = new RecordingDesk(deps.now);
  }

  /**
   * Rings agent `to` with a monitor leg of the key's call `callId`; resolves once the INVITE is out. Refused
   * for the call first (see the file's comment), then for `to`: a number (`400 invalid_input`: the simulator
   * monitors to agents only) and the refusals of {@link SupervisionDeps.freeAgent}.
   */
  async monitor(owner: string, callId: string, to: string): Promise<MonitorCall> {
    const call = this.inProgress(owner, callId);
    if (to.startsWith('+')) throw new HttpError(400, 'invalid_input', 'to: the simulator monitors to a webrtc agent id, not to a number');
    const agent = this.deps.freeAgent(owner, to, 'to');
    const { now, sip, agentAnswerTimeoutMs, mediaAddresses, codecs } = this.deps;
    const leg = new MonitorLeg({ id: newId('c'), kind: 'monitor', monitoredCallId: callId, agentId: agent.agentId, from: call.from }, call.mixer, {
      sip,
      createMedia: () => createMediaPeer({ monitor: true, now, addresses: mediaAddresses, codecs }),
      agentAnswerTimeoutMs,
      now,
    });
    this.monitors.set(leg.call.id, { owner, value: leg, sessionId: agent.sessionId });
    if (!(await leg.start(agent.sessionId))) {
      this.monitors.delete(leg.call.id);
      // Between the checks and the INVITE, either the page left or the call ended: say which.
      this.inProgress(owner, callId);
      throw new HttpError(409, 'browser_session_unavailable', "the agent's browser is not registered; connect it first");
    }
    return leg.call;
  }

  /** Starts recording the key's call in progress (`403 recording_not_enabled` is the route's, per account). */
  startRecording(owner: string, callId: string): Recording {
    return this.recordings.start(owner, callId, this.inProgress(owner, callId).mixer);
  }

  /** Stops the key's running recording `id` of call `callId`. */
  stopRecording(owner: string, callId: string, id: string): Recording {
    return this.recordings.stop(owner, callId, id);
  }

  /** spec 2.6: the recipient answered a call placed with `record: true`; its recording starts now. */
  recordOnAnswer(owner: string, callId: string): void {
    const mixer = this.deps.calls.mixerOf(callId);
    if (mixer && !this.recordings.runningOf(callId)) this.recordings.start(owner, callId, mixer, 'record_on_create');
  }

  /** The key's monitor leg `id`; undefined when it has none of that id (it may be another kind of call). */
  monitorCall(owner: string, id: string): MonitorCall | undefined {
    const stored = this.monitors.get(id);
    return stored?.owner === owner ? stored.value.call : undefined;
  }

  /** The key's monitor legs; `active` keeps those in a non-terminal state (spec 3.1). */
  listMonitors(owner: string, active: boolean): MonitorCall[] {
    return [...this.monitors.values()]
      .filter((stored) => stored.owner === owner && (!active || !TERMINAL_GENERIC_STATES.has(stored.value.call.state)))
      .map((stored) => stored.value.call);
  }

  /** Ends the key's monitor leg `id` (`api_hangup`), answering it as it is now; undefined when it has none of that id. */
  hangupMonitor(owner: string, id: string): MonitorCall | undefined {
    const stored = this.monitors.get(id);
    if (stored?.owner !== owner) return undefined;
    void stored.value.end('api_hangup');
    return stored.value.call;
  }

  /** Whether the agent's page has a monitor leg ringing or up: it is busy with it. */
  monitoringAgent(agentId: string): boolean {
    return [...this.monitors.values()].some((stored) => stored.value.live && stored.value.call.agentId === agentId);
  }

  /** The session ended: its monitor legs end too (`session_ended`). */
  hangupMonitorsOf(sessionId: string): void {
    for (const stored of this.monitors.values()) if (stored.sessionId === sessionId) void stored.value.end('session_ended');
  }

  /** Simulator control: a monitor leg with its SIP and media facts (any owner). */
  inspect(id: string): { call: MonitorCall; facts: CallFacts; media: MediaCounts | null } | undefined {
    const leg = this.monitors.get(id)?.value;
    return leg && { call: leg.call, facts: leg.facts, media: leg.counts() };
  }

  /** Stops every monitor leg and recording, then forgets them (simulator reset). */
  async clear(): Promise<void> {
    const legs = [...this.monitors.values()].map((stored) => stored.value);
    this.monitors.clear();
    this.recordings.clear();
    await Promise.all(legs.map((leg) => leg.dispose()));
  }

  /** The key's call `id` in progress: its mix, and the far party's number; refused otherwise (see the file's comment). */
  private inProgress(owner: string, id: string): { mixer: CallMixer; from: string } {
    const browser = this.browserCall(owner, id);
    const call = browser ? { state: browser.state, from: browser.to } : this.deps.queues.get(owner, id);
    const over = browser ? TERMINAL_STATES.has(call.state) || call.state === 'ending' : TERMINAL_GENERIC_STATES.has(call.state);
    if (over) throw new HttpError(409, 'call_ended', 'the call is over');
    const answered = call.state === (browser ? 'connected' : 'established');
    const mixer = answered ? (browser ? this.deps.calls.mixerOf(id) : this.deps.queues.mixerOf(id)) : undefined;
    if (!mixer) throw new HttpError(409, 'call_not_answered', 'the call is not answered yet; there is no conversation to listen to');
    return { mixer, from: call.from };
  }

  /** The key's browser call `id`, or undefined when it has none of that id (it may be a generic call). */
  private browserCall(owner: string, id: string): { state: string; to: string } | undefined {
    try {
      return this.deps.calls.get(owner, id);
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return undefined;
      throw error;
    }
  }
}
