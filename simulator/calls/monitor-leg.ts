import { initialFacts, type CallFacts } from './call-facts.js';
import { encodeMulaw } from '../media/g711.js';
import { LegMedia } from './leg-media.js';
import type { MediaCounts, MediaPeer } from '../media/media.js';
import type { CallMixer, MixListener } from '../media/mixer.js';
import { TERMINAL_GENERIC_STATES, type CallError, type GenericCallState } from '../service/model.js';
import type { BrowserLeg, SipServer } from '../sip/sip-server.js';
import { TimerSet } from './timer-set.js';

/**
 * A supervisor's `monitor` leg of a call (spec 2.6 leg kinds, 4.8 "monitor a call"; docs/simulator.md "Supervisors and
 * recordings"): an INVITE to the supervisor agent's registered page naming the leg in `X-Call-Id` and the call it
 * listens to in `X-Monitored-Call-Id`, whose offer is `sendonly`; once answered, the page hears both parties of
 * the call mixed (`CallMixer`), and nothing it might send is used. The leg ends with the call.
 *
 * @remarks
 * States (spec 3.1): `ringing` once the INVITE is out, `established` once the page answered, then `finished`
 * (the call ended, the supervisor hung up, or a hangup request); `cancelled` when it ended before the answer for
 * those reasons, `no_answer` when the page let it ring out, `failed` when the page refused it or its socket closed
 * before answering. Like every call of the simulator, a terminal state is recorded only once the leg and its
 * media are down. After the answer, the page's socket closing does not end the leg: it listens on while its
 * audio flows, and ends with the call, its BYE or a hangup request.
 */

/** A monitor leg as the service answers it (`GET /calls/{id}`). */
export interface MonitorCall {
  /** `c_` and letters or digits, as every generic call. */
  id: string;
  kind: 'monitor';
  /** The call it listens to. */
  monitoredCallId: string;
  /** The supervisor's agent: the `to` of the monitor request. */
  agentId: string;
  /** The number the supervisor's page sees the INVITE come from: the far party of the call it listens to. */
  from: string;
  state: GenericCallState;
  /** `call_ended`, `agent_hangup`, `api_hangup`, `session_ended`, `agent_rejected`, `agent_no_answer`, `connection_lost`; null while it runs. */
  endReason: string | null;
  error: CallError | null;
  createdAt: string;
  answeredAt: string | null;
  endedAt: string | null;
}

/** What a monitor leg needs: the registrar, its media, the call's mix, the answer timeout, the clock. */
export interface MonitorLegDeps {
  sip: SipServer;
  createMedia(): MediaPeer;
  agentAnswerTimeoutMs: number;
  now(): number;
}

/** One monitor leg, from its INVITE to its end. */
export class MonitorLeg {
  readonly facts: CallFacts;
  private record: MonitorCall;
  private media: LegMedia | undefined;
  private leg: BrowserLeg | undefined;
  private readonly timers = new TimerSet();
  private readonly listener: MixListener;
  private ending = false;

  constructor(
    record: Omit<MonitorCall, 'state' | 'endReason' | 'error' | 'answeredAt' | 'endedAt' | 'createdAt'>,
    private readonly mixer: CallMixer,
    private readonly deps: MonitorLegDeps,
  ) {
    this.record = { ...record, state: 'ringing', endReason: null, error: null, createdAt: this.stamp(), answeredAt: null, endedAt: null };
    this.facts = initialFacts(this.record);
    this.listener = {
      frame: (samples) => this.media?.send(encodeMulaw(samples)),
      end: () => void this.end('call_ended'),
    };
  }

  get call(): MonitorCall {
    return { ...this.record };
  }

  /** Still ringing or established. */
  get live(): boolean {
    return !this.ending && !TERMINAL_GENERIC_STATES.has(this.record.state);
  }

  counts(): MediaCounts | null {
    return this.media?.counts() ?? this.facts.media;
  }

  /**
   * Creates the `sendonly` offer and rings the agent registered under `sessionId`; false, the leg left as it
   * was, when the agent is not registered or the call's audio is already over.
   */
  async start(sessionId: string): Promise<boolean> {
    const media = new LegMedia(this.deps.createMedia(), this.facts, () => this.stamp(), this.deps.now);
    this.media = media;
    const offerSdp = await media.createOffer();
    if (!this.mixer.attach(this.listener)) return this.abandon();
    this.leg = this.deps.sip.invite(sessionId, {
      callId: this.record.id,
      callIdHeader: 'X-Call-Id',
      extraHeaders: [`X-Monitored-Call-Id: ${this.record.monitoredCallId}`],
      from: this.record.from,
      offerSdp,
      handlers: {
        onAnswered: (sdp) => void this.onAnswered(sdp),
        onRejected: (status, reason) => {
          this.facts.browserFinalStatus = status;
          void this.end('agent_rejected', { code: 'agent_rejected', message: `the supervisor's page answered ${status} ${reason}`.trim() });
        },
        onBye: () => void this.end('agent_hangup'),
        onInfo: (contentType, body) => media.info(contentType, body),
        onReoffer: (sdp) => (this.ending ? Promise.reject(new Error('the leg has no media to offer to')) : media.reoffer(sdp)),
        onTransportLost: () => this.onTransportLost(),
      },
    });
    if (!this.leg) return this.abandon();
    this.facts.inviteSentAt = this.stamp();
    this.timers.after(this.deps.agentAnswerTimeoutMs, () => this.end('agent_no_answer'));
    return true;
  }

  /** Ends the leg (CANCEL before the answer, BYE after it) and records why, once it is down. */
  async end(reason: string, error?: CallError): Promise<void> {
    if (!this.live) return;
    this.ending = true;
    this.timers.clear();
    this.mixer.detach(this.listener);
    const answered = this.record.answeredAt !== null;
    const leg = this.leg;
    this.leg = undefined;
    if (leg) this.facts.browserLegEnd = await leg.end();
    await this.closeMedia();
    this.set(terminalState(reason, answered), { endReason: reason, error: error ?? null, endedAt: this.stamp() });
  }

  /** Stops timers, the leg and media without recording an end (simulator reset). */
  async dispose(): Promise<void> {
    this.ending = true;
    this.timers.clear();
    this.mixer.detach(this.listener);
    void this.leg?.end();
    await this.closeMedia();
  }

  private async onAnswered(sdp: string): Promise<void> {
    this.timers.clear();
    try {
      await this.media?.acceptAnswer(sdp);
    } catch (error) {
      return this.end('media_failed', { code: 'media_failed', message: `the supervisor's answer was not usable: ${String(error)}` });
    }
    if (this.live) this.set('established', { answeredAt: this.stamp() });
  }

  private onTransportLost(): void {
    if (!this.live) return;
    this.facts.transportLostAt = this.stamp();
    if (this.record.answeredAt === null) void this.end('connection_lost', { code: 'connection_lost', message: "the supervisor's SIP connection closed before it answered" });
  }

  /** The INVITE could not go out: nothing to record, the caller refuses the request. */
  private async abandon(): Promise<false> {
    this.ending = true;
    this.mixer.detach(this.listener);
    await this.closeMedia();
    return false;
  }

  private async closeMedia(): Promise<void> {
    const media = this.media;
    this.media = undefined;
    await media?.close();
  }

  private set(state: GenericCallState, patch: Partial<MonitorCall> = {}): void {
    if (state !== this.record.state) this.facts.history.push({ state, at: this.stamp() });
    this.record = { ...this.record, ...patch, state };
  }

  private stamp(): string {
    return new Date(this.deps.now()).toISOString();
  }
}

/** The terminal state of a leg that ends for `reason` (spec 3.1). */
function terminalState(reason: string, answered: boolean): GenericCallState {
  if (reason === 'agent_no_answer') return 'no_answer';
  if (['agent_rejected', 'connection_lost', 'media_failed'].includes(reason) && !answered) return 'failed';
  return answered ? 'finished' : 'cancelled';
}
